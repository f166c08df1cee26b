/**
 * A real HTTP server on 127.0.0.1 (random port) that speaks the
 * `/v1/embeddings` protocol, for tests. Each request is answered by the next
 * scripted reply; when the script runs out, by a correct answer. Every
 * request is recorded.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: { model?: string; input?: string[]; encoding_format?: string; dimensions?: number };
}

/** How to answer one request. */
export type Reply = (request: RecordedRequest, response: ServerResponse) => void;

export interface EmbeddingsServer {
  /** `http://127.0.0.1:<port>/v1` */
  readonly baseUrl: string;
  readonly requests: RecordedRequest[];
  /** Queues replies for the next requests, in order. */
  script(...replies: Reply[]): void;
  close(): Promise<void>;
}

/** A deterministic vector for `text`: the first values carry its length and first char code. */
export function vectorFor(text: string, dimensions: number): number[] {
  return Array.from({ length: dimensions }, (_, d) => (d === 0 ? text.length : d === 1 ? text.charCodeAt(0) : (d % 7) - 3));
}

/** A correct answer, in reverse order (so clients must sort by `index`). */
export function ok(dimensions: number): Reply {
  return (request, response) => {
    const inputs = request.body.input ?? [];
    const data = inputs.map((text, index) => ({ object: 'embedding', index, embedding: vectorFor(text, dimensions) })).reverse();
    json(response, 200, { object: 'list', data, model: request.body.model, usage: { prompt_tokens: 1, total_tokens: 1 } });
  };
}

/** An answer with the given status and JSON body, and extra headers. */
export function status(code: number, body: unknown = { error: { message: `status ${code}` } }, headers: Record<string, string> = {}): Reply {
  return (_request, response) => json(response, code, body, headers);
}

/** A 200 whose body is `text` as is. */
export function raw(text: string): Reply {
  return (_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(text);
  };
}

/** A 200 answer built from the request. */
export function custom(body: (request: RecordedRequest) => unknown): Reply {
  return (request, response) => json(response, 200, body(request));
}

/** Never answers (until the server closes). */
export const hang: Reply = () => {};

/** Sends headers, then never finishes the body. */
export const stallBody: Reply = (_request, response) => {
  response.writeHead(200, { 'content-type': 'application/json' });
  response.write('{"data": [');
};

/** Drops the connection without an answer. */
export const drop: Reply = (_request, response) => {
  response.socket?.destroy();
};

function json(response: ServerResponse, code: number, body: unknown, headers: Record<string, string> = {}): void {
  response.writeHead(code, { 'content-type': 'application/json', ...headers });
  response.end(JSON.stringify(body));
}

export async function startEmbeddingsServer(dimensions: number): Promise<EmbeddingsServer> {
  const queue: Reply[] = [];
  const requests: RecordedRequest[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let body: RecordedRequest['body'] = {};
      try {
        body = JSON.parse(text) as RecordedRequest['body'];
      } catch {
        // recorded as empty
      }
      const request = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body };
      requests.push(request);
      (queue.shift() ?? ok(dimensions))(request, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    script: (...replies) => queue.push(...replies),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
