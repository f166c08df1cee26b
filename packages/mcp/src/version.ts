/** This package's version, read from its package.json. */
import { readFileSync } from 'node:fs';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };

/** The package version, reported to MCP clients. */
export const PACKAGE_VERSION: string = pkg.version;
