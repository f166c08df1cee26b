/**
 * The page: files that `vite build` wrote to `dist/page` when the package
 * was built, served as they are. Nothing is fetched from anywhere else at
 * run time, and the page may not load anything from elsewhere (its content
 * security policy says so).
 */
import { readFile } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { extname, join, normalize, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Where the built page lives, beside the server's own files. */
export const PAGE_DIR = fileURLToPath(new URL('./page/', import.meta.url));

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
};

const SECURITY_HEADERS = {
  'content-security-policy': "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

/**
 * Answers with the page's file at `path`: a hashed asset under `/assets/`,
 * else `index.html`, whose script routes the view (so a reload keeps it).
 */
export async function servePage(path: string, res: ServerResponse): Promise<void> {
  const asset = path.startsWith('/assets/') ? normalize(join(PAGE_DIR, path)) : join(PAGE_DIR, 'index.html');
  if (!asset.startsWith(PAGE_DIR) || asset.includes(`${sep}..${sep}`)) return void res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
  let body: Buffer;
  try {
    body = await readFile(asset);
  } catch {
    const missing = !path.startsWith('/assets/');
    res.writeHead(missing ? 503 : 404, { 'content-type': 'text/plain' });
    res.end(missing ? `the page is not built: run the build of @agentstate/ui (${PAGE_DIR} is missing)` : 'not found');
    return;
  }
  const cache = path.startsWith('/assets/') ? 'public, max-age=31536000, immutable' : 'no-store';
  res.writeHead(200, { 'content-type': TYPES[extname(asset)] ?? 'application/octet-stream', 'cache-control': cache, ...SECURITY_HEADERS });
  res.end(body);
}
