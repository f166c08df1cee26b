/** This package's name and version, read from its package.json. */
import { readFileSync } from 'node:fs';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { name: string; version: string };

/** The npm package name. */
export const PACKAGE_NAME: string = pkg.name;
/** The package version, reported to MCP clients. */
export const PACKAGE_VERSION: string = pkg.version;
