/**
 * An {@link Embedder} over any server that speaks OpenAI's `/v1/embeddings`
 * protocol (OpenAI, Ollama, vLLM, LM Studio…). Inputs are sent in batches,
 * one batch at a time; each attempt has a timeout; 408, 429, 5xx, timeouts
 * and network failures are retried with exponential backoff and jitter,
 * honouring `Retry-After`; anything else fails at once with a typed
 * {@link EmbeddingError}. Vectors come back in input order.
 */
import { systemClock, systemEntropy, ValidationError, type Clock, type Embedder, type Entropy } from '@agentstate/core';
import { EmbeddingError, EmbeddingHttpError, EmbeddingNetworkError, EmbeddingTimeoutError } from '../errors.js';
import { normalizeInPlace } from '../vector.js';
import { parseEmbeddingsResponse } from './response.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { backoffMs, retryAfterMs, uniform } from './retry.js';

/** Options of {@link createOpenAIEmbedder}. */
export interface OpenAIEmbedderOptions {
  /**
   * The API root, up to and including the version segment; `/embeddings` is
   * appended. For example `https://api.openai.com/v1`,
   * `http://127.0.0.1:11434/v1` (Ollama), `http://127.0.0.1:1234/v1` (LM Studio).
   */
  readonly baseUrl: string;
  /** Model name, e.g. `text-embedding-3-small`, `nomic-embed-text`. */
  readonly model: string;
  /** Sent as `Authorization: Bearer <apiKey>` when given. */
  readonly apiKey?: string;
  /** Length of the model's vectors; every answer is checked against it. */
  readonly dimensions: number;
  /** Inputs per request (default 64). */
  readonly batchSize?: number;
  /** Per-attempt limit for the whole request, body included, in ms (default 30,000). */
  readonly timeoutMs?: number;
  /** Retries after the first attempt of a batch (default 3). */
  readonly maxRetries?: number;
  /** First backoff, doubled on each retry (default 500 ms). */
  readonly retryBaseDelayMs?: number;
  /** Cap of one backoff, and of an honoured `Retry-After` (default 20,000 ms); a longer `Retry-After` fails at once. */
  readonly maxRetryDelayMs?: number;
  /** Also send `dimensions` in the request, for models that can shorten their vectors (OpenAI `text-embedding-3-*`). Default false. */
  readonly sendDimensions?: boolean;
  /** Scale every vector to unit length (default true); a zero vector stays zero. */
  readonly normalize?: boolean;
  /** Extra request headers (e.g. an `api-key` header, an organisation id). */
  readonly headers?: Readonly<Record<string, string>>;
  /** Overrides the embedder id (default `openai-compatible:<model>:<dimensions>@<baseUrl>`). */
  readonly id?: string;
  /** Passed through as the embedder's `similarityThreshold`; it depends on the model. */
  readonly similarityThreshold?: number;
  /** The fetch to use (default the global one). */
  readonly fetch?: typeof fetch;
  /** Time source for HTTP-date `Retry-After` (default the system clock). */
  readonly clock?: Clock;
  /** Randomness for backoff jitter (default the system's). */
  readonly entropy?: Entropy;
}

/** The options, checked, with their defaults filled in. */
type Settings = ReturnType<typeof settingsOf>;

function positiveInteger(field: string, value: number | undefined, fallback: number): number {
  const n = value ?? fallback;
  if (!Number.isSafeInteger(n) || n <= 0) throw new ValidationError(field, 'must be a positive integer');
  return n;
}

function nonNegative(field: string, value: number | undefined, fallback: number): number {
  const n = value ?? fallback;
  if (!Number.isFinite(n) || n < 0) throw new ValidationError(field, 'must be a non-negative number');
  return n;
}

function settingsOf(options: OpenAIEmbedderOptions) {
  let base: URL;
  try {
    base = new URL(options.baseUrl);
  } catch {
    throw new ValidationError('baseUrl', `not a URL: ${JSON.stringify(options.baseUrl)}`);
  }
  if (base.protocol !== 'http:' && base.protocol !== 'https:') throw new ValidationError('baseUrl', 'must be http or https');
  if (base.username !== '' || base.password !== '') throw new ValidationError('baseUrl', 'must not hold credentials: use apiKey or headers');
  if (typeof options.model !== 'string' || options.model.trim() === '') throw new ValidationError('model', 'must be a non-empty string');
  const maxRetries = nonNegative('maxRetries', options.maxRetries, 3);
  if (!Number.isInteger(maxRetries)) throw new ValidationError('maxRetries', 'must be an integer');
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
  for (const [name, value] of Object.entries(options.headers ?? {})) headers[name.toLowerCase()] = value;
  if (options.apiKey !== undefined && options.apiKey !== '') headers.authorization = `Bearer ${options.apiKey}`;
  return {
    url: `${base.href.replace(/\/+$/, '')}/embeddings`,
    model: options.model,
    dimensions: positiveInteger('dimensions', options.dimensions, 0),
    batchSize: positiveInteger('batchSize', options.batchSize, 64),
    timeoutMs: positiveInteger('timeoutMs', options.timeoutMs, 30_000),
    maxRetries,
    retryBaseDelayMs: nonNegative('retryBaseDelayMs', options.retryBaseDelayMs, 500),
    maxRetryDelayMs: nonNegative('maxRetryDelayMs', options.maxRetryDelayMs, 20_000),
    sendDimensions: options.sendDimensions ?? false,
    normalize: options.normalize ?? true,
    headers,
    fetch: options.fetch ?? globalThis.fetch,
    clock: options.clock ?? systemClock,
    entropy: options.entropy ?? systemEntropy,
  };
}

/** One request, one answer, within the timeout; failures as typed errors. */
async function attempt(settings: Settings, inputs: readonly string[], attempts: number): Promise<Float32Array[]> {
  const signal = AbortSignal.timeout(settings.timeoutMs);
  try {
    const body: Record<string, unknown> = { model: settings.model, input: inputs, encoding_format: 'float' };
    if (settings.sendDimensions) body.dimensions = settings.dimensions;
    const response = await settings.fetch(settings.url, {
      method: 'POST',
      headers: settings.headers,
      body: JSON.stringify(body),
      signal,
    });
    const text = await response.text();
    if (!response.ok) {
      throw new EmbeddingHttpError(response.status, text.slice(0, 1000), attempts, retryAfterMs(response.headers, settings.clock.now()));
    }
    return parseEmbeddingsResponse(text, inputs.length, settings.dimensions, attempts);
  } catch (error) {
    if (error instanceof EmbeddingError) throw error;
    if (signal.aborted) throw new EmbeddingTimeoutError(settings.timeoutMs, attempts);
    throw new EmbeddingNetworkError(error, attempts);
  }
}

/** Sends one batch, retrying what may succeed later. */
async function embedBatch(settings: Settings, inputs: readonly string[]): Promise<Float32Array[]> {
  for (let attempts = 1; ; attempts += 1) {
    try {
      return await attempt(settings, inputs, attempts);
    } catch (error) {
      if (!(error instanceof EmbeddingError) || !error.retryable || attempts > settings.maxRetries) throw error;
      const asked = error instanceof EmbeddingHttpError ? error.retryAfterMs : undefined;
      if (asked !== undefined && asked > settings.maxRetryDelayMs) throw error;
      await sleep(asked ?? backoffMs(attempts, settings.retryBaseDelayMs, settings.maxRetryDelayMs, uniform(settings.entropy)));
    }
  }
}

/**
 * Creates an embedder for an OpenAI-compatible `/v1/embeddings` endpoint.
 * Throws core's `ValidationError` for bad options. `embed` rejects with an
 * {@link EmbeddingError}; blank texts get the zero vector without a request
 * (servers reject empty inputs).
 */
export function createOpenAIEmbedder(options: OpenAIEmbedderOptions): Embedder {
  const settings = settingsOf(options);
  const id = options.id ?? `openai-compatible:${settings.model}:${settings.dimensions}@${settings.url.replace(/\/embeddings$/, '')}`;
  return {
    id,
    dimensions: settings.dimensions,
    ...(options.similarityThreshold === undefined ? {} : { similarityThreshold: options.similarityThreshold }),
    async embed(texts) {
      const out: Float32Array[] = texts.map(() => new Float32Array(settings.dimensions));
      const pending = texts.flatMap((text, i) => (text.trim() === '' ? [] : [i]));
      for (let start = 0; start < pending.length; start += settings.batchSize) {
        const positions = pending.slice(start, start + settings.batchSize);
        const vectors = await embedBatch(
          settings,
          positions.map((i) => texts[i]!),
        );
        for (const [k, position] of positions.entries()) out[position] = settings.normalize ? normalizeInPlace(vectors[k]!) : vectors[k]!;
      }
      return out;
    },
  };
}
