import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { ManualClock, seededEntropy, ValidationError } from '@agentstate/core';
import { afterAll, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  createOpenAIEmbedder,
  EmbeddingHttpError,
  EmbeddingNetworkError,
  EmbeddingResponseError,
  EmbeddingTimeoutError,
  isEmbeddingError,
  type OpenAIEmbedderOptions,
} from '../src/index.js';
import { custom, drop, hang, raw, stallBody, startEmbeddingsServer, status, vectorFor, type EmbeddingsServer } from './support/embeddings-server.js';

const DIMS = 8;
const server: EmbeddingsServer = await startEmbeddingsServer(DIMS);
afterAll(() => server.close());
beforeEach(() => {
  server.requests.length = 0;
});

function embedder(options: Partial<OpenAIEmbedderOptions> = {}) {
  return createOpenAIEmbedder({
    baseUrl: server.baseUrl,
    model: 'test-embed',
    dimensions: DIMS,
    retryBaseDelayMs: 5,
    maxRetryDelayMs: 200,
    entropy: seededEntropy(7),
    normalize: false,
    ...options,
  });
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

describe('createOpenAIEmbedder against a local /v1/embeddings server', () => {
  it('sends batches and returns vectors in input order', async () => {
    const texts = ['alpha', 'bravo', 'charlie', 'delta', 'echo'];
    const vectors = await embedder({ batchSize: 2, apiKey: 'sk-test' }).embed(texts);
    expect(vectors.map((v) => Array.from(v))).toEqual(texts.map((t) => vectorFor(t, DIMS)));
    expect(server.requests.map((r) => r.body.input)).toEqual([['alpha', 'bravo'], ['charlie', 'delta'], ['echo']]);
    const first = server.requests[0]!;
    expect(first.method).toBe('POST');
    expect(first.url).toBe('/v1/embeddings');
    expect(first.headers.authorization).toBe('Bearer sk-test');
    expect(first.body).toMatchObject({ model: 'test-embed', encoding_format: 'float' });
    expect(first.body.dimensions).toBeUndefined();
  });

  it('sends dimensions when asked, and extra headers', async () => {
    await embedder({ sendDimensions: true, headers: { 'X-Org': 'acme' } }).embed(['x']);
    expect(server.requests[0]!.body.dimensions).toBe(DIMS);
    expect(server.requests[0]!.headers['x-org']).toBe('acme');
    expect(server.requests[0]!.headers.authorization).toBeUndefined();
  });

  it('gives blank texts the zero vector without a request', async () => {
    const vectors = await embedder().embed(['', '  ', 'word']);
    expect(Array.from(vectors[0]!)).toEqual(new Array(DIMS).fill(0));
    expect(Array.from(vectors[1]!)).toEqual(new Array(DIMS).fill(0));
    expect(server.requests.map((r) => r.body.input)).toEqual([['word']]);
    expect(await embedder().embed([])).toEqual([]);
    expect(server.requests).toHaveLength(1);
  });

  it('normalises to unit length by default', async () => {
    const [v] = await embedder({ normalize: true }).embed(['hello']);
    const norm = Math.hypot(...v!);
    expect(norm).toBeCloseTo(1, 5);
  });

  it('retries a 429, honouring Retry-After, then succeeds', async () => {
    server.script(status(429, { error: { message: 'slow down' } }, { 'retry-after': '0' }));
    const [v] = await embedder().embed(['again']);
    expect(Array.from(v!)).toEqual(vectorFor('again', DIMS));
    expect(server.requests).toHaveLength(2);
  });

  it('honours an HTTP-date Retry-After against the injected clock', async () => {
    const clock = new ManualClock(Date.parse('2026-01-01T00:00:00Z'));
    server.script(status(503, {}, { 'retry-after': 'Thu, 01 Jan 2026 00:00:00 GMT' }));
    const [v] = await embedder({ clock }).embed(['dated']);
    expect(Array.from(v!)).toEqual(vectorFor('dated', DIMS));
    expect(server.requests).toHaveLength(2);
  });

  it('fails at once when Retry-After asks for longer than it will wait', async () => {
    server.script(status(429, { error: { message: 'quota' } }, { 'retry-after': '3600' }));
    const error = await rejection(embedder().embed(['later']));
    expect(error).toBeInstanceOf(EmbeddingHttpError);
    expect(error).toMatchObject({ status: 429, retryable: true, attempts: 1, retryAfterMs: 3_600_000 });
    expect(server.requests).toHaveLength(1);
  });

  it('retries 5xx with backoff and gives up after maxRetries', async () => {
    server.script(status(500), status(502), status(503));
    const error = await rejection(embedder({ maxRetries: 2 }).embed(['doomed']));
    expect(error).toBeInstanceOf(EmbeddingHttpError);
    expect(error).toMatchObject({ code: 'http', status: 503, retryable: true, attempts: 3 });
    expect(isEmbeddingError(error)).toBe(true);
    expect(server.requests).toHaveLength(3);
  });

  it('recovers when a 5xx is followed by success', async () => {
    server.script(status(500), status(500));
    const [v] = await embedder({ maxRetries: 2 }).embed(['phew']);
    expect(Array.from(v!)).toEqual(vectorFor('phew', DIMS));
  });

  it('does not retry a 400 and reports the server message', async () => {
    server.script(status(400, { error: { message: "'input' is invalid", type: 'invalid_request_error' } }));
    const error = await rejection(embedder().embed(['bad']));
    expect(error).toBeInstanceOf(EmbeddingHttpError);
    expect(error).toMatchObject({ status: 400, retryable: false, attempts: 1 });
    expect((error as Error).message).toContain("'input' is invalid");
    expect(server.requests).toHaveLength(1);
  });

  it('does not retry a 401', async () => {
    server.script(status(401, 'no key'));
    const error = await rejection(embedder().embed(['secret']));
    expect(error).toMatchObject({ status: 401, retryable: false });
    expect(server.requests).toHaveLength(1);
  });

  it('times out a server that never answers', async () => {
    server.script(hang);
    const error = await rejection(embedder({ timeoutMs: 100, maxRetries: 0 }).embed(['slow']));
    expect(error).toBeInstanceOf(EmbeddingTimeoutError);
    expect(error).toMatchObject({ code: 'timeout', timeoutMs: 100, retryable: true, attempts: 1 });
    // On a loaded machine the server may read the request after the client gave up: counted here, not in the next test.
    await vi.waitFor(() => expect(server.requests).toHaveLength(1));
  });

  it('times out a body that stalls, and retries timeouts', async () => {
    server.script(stallBody, stallBody);
    const error = await rejection(embedder({ timeoutMs: 100, maxRetries: 1 }).embed(['stall']));
    expect(error).toBeInstanceOf(EmbeddingTimeoutError);
    expect(error).toMatchObject({ attempts: 2 });
    await vi.waitFor(() => expect(server.requests).toHaveLength(2));
  });

  it('succeeds after a timed-out attempt', async () => {
    server.script(hang);
    // Long enough for the second, prompt answer even on a loaded machine.
    const [v] = await embedder({ timeoutMs: 1000, maxRetries: 1 }).embed(['patience']);
    expect(Array.from(v!)).toEqual(vectorFor('patience', DIMS));
  });

  it('retries a dropped connection, then reports a network error', async () => {
    server.script(drop, drop);
    const error = await rejection(embedder({ maxRetries: 1 }).embed(['gone']));
    expect(error).toBeInstanceOf(EmbeddingNetworkError);
    expect(error).toMatchObject({ code: 'network', retryable: true, attempts: 2 });
  });

  it('reports a refused connection as a network error', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const error = await rejection(embedder({ baseUrl: `http://127.0.0.1:${port}/v1`, maxRetries: 1 }).embed(['nobody']));
    expect(error).toBeInstanceOf(EmbeddingNetworkError);
    expect(error).toMatchObject({ attempts: 2 });
  });

  const malformed: Array<[string, Parameters<EmbeddingsServer['script']>[0], RegExp]> = [
    ['a body that is not JSON', raw('<html>oops</html>'), /not JSON/],
    ['no data array', custom(() => ({ object: 'list' })), /no "data" array/],
    ['too few vectors', custom(() => ({ data: [{ index: 0, embedding: vectorFor('a', DIMS) }] })), /1 vectors for 2 inputs/],
    ['wrong dimensions', custom((r) => ({ data: r.body.input!.map((_, index) => ({ index, embedding: [1, 2, 3] })) })), /3 dimensions, expected 8/],
    [
      'a non-finite value',
      custom((r) => ({ data: r.body.input!.map((_, index) => ({ index, embedding: [...vectorFor('a', DIMS - 1), 'x'] })) })),
      /not a finite number/,
    ],
    ['a repeated index', custom((r) => ({ data: r.body.input!.map(() => ({ index: 0, embedding: vectorFor('a', DIMS) })) })), /index 0 appears twice/],
    [
      'an index out of range',
      custom((r) => ({ data: r.body.input!.map((_, index) => ({ index: index + 5, embedding: vectorFor('a', DIMS) })) })),
      /is not an input position/,
    ],
    [
      'index on some items only',
      custom(() => ({ data: [{ index: 0, embedding: vectorFor('a', DIMS) }, { embedding: vectorFor('b', DIMS) }] })),
      /some items but not all/,
    ],
  ];
  it.each(malformed)('rejects %s without retrying', async (_name, reply, message) => {
    server.script(reply);
    const error = await rejection(embedder().embed(['one', 'two']));
    expect(error).toBeInstanceOf(EmbeddingResponseError);
    expect(error).toMatchObject({ code: 'bad_response', retryable: false, attempts: 1 });
    expect((error as Error).message).toMatch(message);
    expect(server.requests).toHaveLength(1);
  });

  it('takes items in order when no item has an index', async () => {
    server.script(custom((r) => ({ data: r.body.input!.map((text) => ({ embedding: vectorFor(text, DIMS) })) })));
    const vectors = await embedder().embed(['first', 'second']);
    expect(vectors.map((v) => Array.from(v))).toEqual([vectorFor('first', DIMS), vectorFor('second', DIMS)]);
  });

  it('has an id naming model, dimensions and endpoint, and passes the threshold through', () => {
    const e = embedder({ similarityThreshold: 0.3 });
    expect(e.id).toBe(`openai-compatible:test-embed:${DIMS}@${server.baseUrl}`);
    expect(e.dimensions).toBe(DIMS);
    expect(e.similarityThreshold).toBe(0.3);
    expect(embedder({ id: 'mine' }).id).toBe('mine');
    expect('similarityThreshold' in embedder()).toBe(false);
  });

  it.each<[string, Partial<OpenAIEmbedderOptions>]>([
    ['baseUrl', { baseUrl: 'not a url' }],
    ['baseUrl', { baseUrl: 'ftp://127.0.0.1/v1' }],
    ['baseUrl', { baseUrl: 'http://user:secret@127.0.0.1/v1' }],
    ['model', { model: ' ' }],
    ['dimensions', { dimensions: 0 }],
    ['dimensions', { dimensions: 1.5 }],
    ['batchSize', { batchSize: 0 }],
    ['timeoutMs', { timeoutMs: -1 }],
    ['maxRetries', { maxRetries: -1 }],
    ['maxRetries', { maxRetries: 0.5 }],
  ])('rejects a bad %s with a ValidationError', (field, options) => {
    expect(() => embedder(options)).toThrow(ValidationError);
    try {
      embedder(options);
    } catch (error) {
      expect((error as ValidationError).field).toBe(field);
    }
  });
});
