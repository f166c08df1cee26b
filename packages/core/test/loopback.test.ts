/**
 * The loopback rules shared by the MCP server's HTTP transport and the
 * inspector, through the subpath both import.
 */
import { hostnameOf, isLoopbackHost, isLoopbackOrigin, isLoopbackRequest, isOwnOriginOrNone, MIN_TOKEN_LENGTH, tokenChecker } from '@agentstate/core/loopback';
import { describe, expect, it } from 'vitest';

describe('@agentstate/core/loopback', () => {
  it('knows loopback names and addresses', () => {
    for (const host of ['127.0.0.1', '127.8.0.1', 'localhost', 'LOCALHOST', 'api.localhost', '::1', '[::1]', '::ffff:127.0.0.1'])
      expect(isLoopbackHost(host), host).toBe(true);
    for (const host of ['0.0.0.0', '::', '192.168.1.2', 'example.com', 'localhost.example.com', '128.0.0.1']) expect(isLoopbackHost(host), host).toBe(false);
  });

  it('reads the host of a Host header, with or without a port', () => {
    expect(hostnameOf('127.0.0.1:8765')).toBe('127.0.0.1');
    expect(hostnameOf('[::1]:8765')).toBe('::1');
    expect(hostnameOf('localhost')).toBe('localhost');
  });

  it('lets a request through only when addressed to loopback from a loopback page or no page', () => {
    expect(isLoopbackOrigin('http://localhost:3000')).toBe(true);
    expect(isLoopbackOrigin('http://attacker.example')).toBe(false);
    expect(isLoopbackOrigin('not a url')).toBe(false);
    expect(isLoopbackRequest('127.0.0.1:8777', undefined)).toBe(true);
    expect(isLoopbackRequest('127.0.0.1:8777', 'http://127.0.0.1:8777')).toBe(true);
    expect(isLoopbackRequest('127.0.0.1:8777', 'http://attacker.example')).toBe(false);
    expect(isLoopbackRequest('attacker.example', undefined)).toBe(false);
    expect(isLoopbackRequest(undefined, undefined)).toBe(false);
  });

  it("lets a change through only from no page or from the server's own origin, port included", () => {
    expect(isOwnOriginOrNone(undefined, '127.0.0.1:8777', 8777)).toBe(true);
    expect(isOwnOriginOrNone('http://127.0.0.1:8777', '127.0.0.1:8777', 8777)).toBe(true);
    expect(isOwnOriginOrNone('http://localhost:8777', 'localhost:8777', 8777)).toBe(true);
    expect(isOwnOriginOrNone('http://[::1]:8777', '[::1]:8777', 8777)).toBe(true);
    expect(isOwnOriginOrNone('http://localhost', 'localhost', 80)).toBe(true);
    // Another local program's page, the same server under another name, or a hidden origin.
    expect(isOwnOriginOrNone('http://localhost:3000', '127.0.0.1:8777', 8777)).toBe(false);
    expect(isOwnOriginOrNone('http://localhost:8777', '127.0.0.1:8777', 8777)).toBe(false);
    expect(isOwnOriginOrNone('null', '127.0.0.1:8777', 8777)).toBe(false);
    expect(isOwnOriginOrNone('https://127.0.0.1:8777', '127.0.0.1:8777', 8777)).toBe(false);
    // A page and a Host that agree, but not on this server's port or on a loopback name.
    expect(isOwnOriginOrNone('http://localhost:3000', 'localhost:3000', 8777)).toBe(false);
    expect(isOwnOriginOrNone('http://attacker.example:8777', 'attacker.example:8777', 8777)).toBe(false);
    expect(isOwnOriginOrNone('http://127.0.0.1:8777', undefined, 8777)).toBe(false);
  });

  it('checks tokens, refusing a missing or different one', () => {
    const check = tokenChecker('a-secret-of-sixteen-chars');
    expect('a-secret-of-sixteen-chars'.length).toBeGreaterThanOrEqual(MIN_TOKEN_LENGTH);
    expect(check('a-secret-of-sixteen-chars')).toBe(true);
    expect(check('a-secret-of-sixteen-chart')).toBe(false);
    expect(check('')).toBe(false);
    expect(check(undefined)).toBe(false);
  });
});
