/**
 * The README's model-server example, run as written against a stand-in for
 * Ollama on its default address, which answers the request the example makes.
 */
import { execFile } from 'node:child_process';
import { createServer, type IncomingMessage } from 'node:http';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tsExamples } from '../../../tools/readme-example.js';
import { HANG_GUARD_MS } from '../../../tools/hang-guard.js';

const packageDir = fileURLToPath(new URL('..', import.meta.url));
const readme = fileURLToPath(new URL('../README.md', import.meta.url));
const requests: Array<{ url: string; body: { model: string; input: string[]; dimensions?: number } }> = [];

async function body(req: IncomingMessage): Promise<string> {
  let text = '';
  for await (const chunk of req) text += chunk;
  return text;
}

const server = createServer((req, res) => {
  void body(req).then((text) => {
    const parsed = JSON.parse(text) as { model: string; input: string[]; dimensions?: number };
    requests.push({ url: req.url ?? '', body: parsed });
    const data = parsed.input.map((_, index) => ({ index, embedding: Array.from({ length: 768 }, (_, d) => (d === index ? 1 : 0)) }));
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ data, model: parsed.model }));
  });
});

beforeAll(() => new Promise<void>((resolve, reject) => server.once('error', reject).listen(11434, '127.0.0.1', resolve)));
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe("the README's model-server example", () => {
  it('asks the server at the documented address for the documented model, as written', async () => {
    const example = tsExamples(readme).find((e) => e.includes('createOpenAIEmbedder({'));
    expect(example).toBeDefined();
    // Plain JavaScript as written: an ES module run from the package folder, so the import resolves.
    await promisify(execFile)(process.execPath, ['--input-type=module', '-e', example!], { cwd: packageDir, timeout: HANG_GUARD_MS });
    expect(requests).toEqual([{ url: '/v1/embeddings', body: expect.objectContaining({ model: 'nomic-embed-text', input: ['the user prefers dark mode'] }) }]);
  });
});
