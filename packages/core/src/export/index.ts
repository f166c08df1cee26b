/** The export format and its reading, shared by every backend and face. */
export * from './errors.js';
export * from './lines.js';
export * from './trailer.js';
export * from './reader.js';
export * from './write.js';
