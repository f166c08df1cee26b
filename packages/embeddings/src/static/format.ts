/**
 * The binary word-vector table the static embedder ships with: words in
 * frequency order, their source frequency ranks, 4-bit quantised vectors
 * with one scale per word, and per word the table words related to it (from
 * a dictionary). Encoding and decoding live here together so the derive
 * script and the runtime agree on every byte.
 *
 * Layout (little-endian):
 *
 * ```
 * "ASWT" | u32 format version | u32 header length H | H bytes of JSON header
 * | u32 length G | G bytes, gzip of:
 * |   words, UTF-8, joined by "\n" (header.wordBytes bytes)
 * |   u32 × count  source frequency rank of each word (0 = most frequent)
 * |   f32 × count  quantisation scale of each word
 * |   u32 × (count + 1)  start of each word's related rows in the list below (+ its end)
 * |   u32 × header.related  related rows, each word's in ascending order
 * | u8 × count × dimensions/2  codes, two 4-bit codes per byte (even dimension
 *   in the low nibble), stored raw: they barely compress, and a view over the
 *   file's bytes needs no decompression and no copy
 * ```
 *
 * A code `q` (0–15) stands for `(q - 7.5) * scale`.
 */
import { endianness } from 'node:os';
import { gunzipSync, gzipSync } from 'node:zlib';
import { TableFormatError } from '../errors.js';
import { Lexicon } from './lexicon.js';

const LITTLE_ENDIAN = endianness() === 'LE';

const MAGIC = 'ASWT';
/** The table format this code reads and writes. */
export const TABLE_FORMAT_VERSION = 2;
const LEVELS = 16;
/** The value code `q` stands for is `(q - CODE_MIDPOINT) * scale`. */
export const CODE_MIDPOINT = (LEVELS - 1) / 2;

/** What a table says about itself. */
export interface TableHeader {
  /** Number of words. */
  readonly count: number;
  /** Length of every vector; even. */
  readonly dimensions: number;
  /** Where the vectors come from, for people. */
  readonly source: string;
  /** Number of words in the source, which frequency ranks are out of. */
  readonly sourceWords: number;
  /** How the source vectors were transformed before quantisation, for people. */
  readonly postprocess: string;
  /** Median L2 norm of the (dequantised) word vectors. */
  readonly medianNorm: number;
  /** Where the related words come from and how they were chosen, for people. */
  readonly relatedSource: string;
}

/** A decoded table: plain arrays, ready to index. */
export interface WordTable {
  readonly header: TableHeader;
  /** The words, in table order (most frequent first), and their rows. */
  readonly lexicon: Lexicon;
  /** Source frequency rank of each word (0 = most frequent). */
  readonly ranks: Uint32Array;
  /** Quantisation scale of each word. */
  readonly scales: Float32Array;
  /** `dimensions / 2` bytes per word. */
  readonly codes: Uint8Array;
  /** The rows related to word `w` are `relatedRows[relatedStarts[w] .. relatedStarts[w + 1])`. */
  readonly relatedStarts: Uint32Array;
  readonly relatedRows: Uint32Array;
}

/** Input to {@link encodeTable}: full-precision vectors, `dimensions` per word. */
export interface TableSource {
  readonly dimensions: number;
  readonly source: string;
  readonly sourceWords: number;
  readonly postprocess: string;
  readonly words: readonly string[];
  readonly ranks: readonly number[];
  readonly vectors: Float32Array;
  /** Per word, the rows of the words related to it (none when absent). */
  readonly related?: readonly (readonly number[])[];
  readonly relatedSource?: string;
}

/**
 * Quantises one vector to 4-bit codes, choosing the clipping range (a
 * fraction of the largest magnitude) with the least squared error.
 */
function quantise(vector: ArrayLike<number>, codes: Uint8Array, offset: number): number {
  let maxAbs = 0;
  for (let i = 0; i < vector.length; i += 1) maxAbs = Math.max(maxAbs, Math.abs(vector[i]!));
  if (maxAbs === 0) {
    // With scale 0 every code decodes to 0; store the middle ones.
    for (let i = 0; i < vector.length / 2; i += 1) codes[offset + i] = 0x88;
    return 0;
  }
  let best = { scale: maxAbs / CODE_MIDPOINT, error: Infinity };
  for (let f = 0.6; f <= 1.0001; f += 0.05) {
    const scale = (maxAbs * f) / CODE_MIDPOINT;
    let error = 0;
    for (let i = 0; i < vector.length; i += 1) {
      const x = vector[i]!;
      error += (x - dequantiseCode(codeOf(x, scale), scale)) ** 2;
    }
    if (error < best.error) best = { scale, error };
  }
  const scale = Math.fround(best.scale);
  for (let i = 0; i < vector.length; i += 2) {
    codes[offset + i / 2] = codeOf(vector[i]!, scale) | (codeOf(vector[i + 1]!, scale) << 4);
  }
  return scale;
}

function codeOf(x: number, scale: number): number {
  return Math.min(LEVELS - 1, Math.max(0, Math.round(x / scale + CODE_MIDPOINT)));
}

function dequantiseCode(code: number, scale: number): number {
  return (code - CODE_MIDPOINT) * scale;
}

/** Writes the dequantised vector of word `index` into `out`. */
export function dequantise(
  table: Pick<WordTable, 'scales' | 'codes'> & { header: Pick<TableHeader, 'dimensions'> },
  index: number,
  out: Float32Array,
): Float32Array {
  const half = table.header.dimensions / 2;
  const scale = table.scales[index]!;
  const base = index * half;
  for (let i = 0; i < half; i += 1) {
    const byte = table.codes[base + i]!;
    out[2 * i] = dequantiseCode(byte & 15, scale);
    out[2 * i + 1] = dequantiseCode(byte >> 4, scale);
  }
  return out;
}

/** Quantises and serialises a table. */
export function encodeTable(input: TableSource): Buffer {
  const { dimensions, words } = input;
  const count = words.length;
  if (dimensions <= 0 || dimensions % 2 !== 0) throw new TableFormatError('dimensions must be even and positive');
  if (input.ranks.length !== count || input.vectors.length !== count * dimensions) {
    throw new TableFormatError('words, ranks and vectors disagree in length');
  }
  const seen = new Set<string>();
  for (const word of words) {
    if (word === '' || word.includes('\n')) throw new TableFormatError(`unstorable word ${JSON.stringify(word)}`);
    if (seen.has(word)) throw new TableFormatError(`duplicate word ${JSON.stringify(word)}`);
    seen.add(word);
  }
  const related = input.related ?? [];
  if (related.length > count) throw new TableFormatError('related rows given for more words than the table has');
  const relatedStarts = new Uint32Array(count + 1);
  const relatedRows: number[] = [];
  for (let w = 0; w < count; w += 1) {
    relatedStarts[w] = relatedRows.length;
    const rows = [...new Set(related[w] ?? [])].sort((a, b) => a - b);
    for (const r of rows) {
      if (!Number.isInteger(r) || r < 0 || r >= count || r === w) throw new TableFormatError(`word ${w} has related row ${r}`);
    }
    relatedRows.push(...rows);
  }
  relatedStarts[count] = relatedRows.length;
  const half = dimensions / 2;
  const codes = new Uint8Array(count * half);
  const scales = new Float32Array(count);
  const norms: number[] = [];
  const scratch = new Float32Array(dimensions);
  for (let w = 0; w < count; w += 1) {
    scales[w] = quantise(input.vectors.subarray(w * dimensions, (w + 1) * dimensions), codes, w * half);
    norms.push(l2(dequantise({ header: { dimensions }, scales, codes }, w, scratch)));
  }
  norms.sort((a, b) => a - b);
  const wordBytes = Buffer.from(words.join('\n'), 'utf8');
  const header = {
    count,
    dimensions,
    source: input.source,
    sourceWords: input.sourceWords,
    postprocess: input.postprocess,
    medianNorm: norms.length === 0 ? 0 : norms[Math.floor(norms.length / 2)]!,
    relatedSource: input.relatedSource ?? 'none',
    wordBytes: wordBytes.length,
    related: relatedRows.length,
  };
  const headerBytes = Buffer.from(JSON.stringify(header), 'utf8');
  const numbers = Buffer.alloc(count * 8 + (count + 1 + relatedRows.length) * 4);
  for (let w = 0; w < count; w += 1) {
    numbers.writeUInt32LE(input.ranks[w]!, w * 4);
    numbers.writeFloatLE(scales[w]!, count * 4 + w * 4);
  }
  for (let i = 0; i <= count; i += 1) numbers.writeUInt32LE(relatedStarts[i]!, count * 8 + i * 4);
  for (let i = 0; i < relatedRows.length; i += 1) numbers.writeUInt32LE(relatedRows[i]!, count * 12 + 4 + i * 4);
  const packed = gzipSync(Buffer.concat([wordBytes, numbers]), { level: 9 });
  const prefix = Buffer.alloc(12);
  prefix.write(MAGIC, 0, 'latin1');
  prefix.writeUInt32LE(TABLE_FORMAT_VERSION, 4);
  prefix.writeUInt32LE(headerBytes.length, 8);
  const packedLength = Buffer.alloc(4);
  packedLength.writeUInt32LE(packed.length, 0);
  return Buffer.concat([prefix, headerBytes, packedLength, packed, codes]);
}

/** Parses a table file's bytes; throws {@link TableFormatError} on any inconsistency. The codes stay a view over `bytes`. */
export function decodeTable(bytes: Uint8Array): WordTable {
  const file = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (file.length < 16 || file.toString('latin1', 0, 4) !== MAGIC) throw new TableFormatError('missing magic');
  const version = file.readUInt32LE(4);
  if (version !== TABLE_FORMAT_VERSION) throw new TableFormatError(`format version ${version}, expected ${TABLE_FORMAT_VERSION}`);
  const headerLength = file.readUInt32LE(8);
  let header: TableHeader & { wordBytes: number; related: number };
  try {
    header = JSON.parse(file.toString('utf8', 12, 12 + headerLength)) as TableHeader & { wordBytes: number; related: number };
  } catch (cause) {
    throw new TableFormatError('unreadable header', { cause });
  }
  const { count, dimensions, wordBytes, related } = header;
  if (!Number.isInteger(count) || count < 0 || !Number.isInteger(dimensions) || dimensions <= 0 || dimensions % 2 !== 0) {
    throw new TableFormatError('bad count or dimensions');
  }
  if (!Number.isInteger(related) || related < 0) throw new TableFormatError('bad related count');
  let at = 12 + headerLength;
  if (file.length < at + 4) throw new TableFormatError('truncated');
  const packedLength = file.readUInt32LE(at);
  at += 4;
  const codesLength = (count * dimensions) / 2;
  if (file.length !== at + packedLength + codesLength) {
    throw new TableFormatError(`length ${file.length}, expected ${at + packedLength + codesLength}`);
  }
  let unpacked: Buffer;
  try {
    unpacked = gunzipSync(file.subarray(at, at + packedLength));
  } catch (cause) {
    throw new TableFormatError('word list is not gzip data', { cause });
  }
  if (unpacked.length !== wordBytes + count * 12 + 4 + related * 4) throw new TableFormatError('word list has the wrong length');
  const joined = unpacked.toString('utf8', 0, wordBytes);
  let lexicon: Lexicon;
  try {
    lexicon = new Lexicon(joined, count);
  } catch (cause) {
    throw new TableFormatError('word list does not match the count', { cause });
  }
  const { ranks, scales, relatedStarts, relatedRows } = readNumbers(unpacked, wordBytes, count, related);
  if (relatedStarts[0] !== 0 || relatedStarts[count] !== related) throw new TableFormatError('related rows out of range');
  for (let w = 0; w < count; w += 1) {
    if (relatedStarts[w]! > relatedStarts[w + 1]!) throw new TableFormatError('related rows out of range');
  }
  for (const row of relatedRows) if (row >= count) throw new TableFormatError('related rows out of range');
  at += packedLength;
  const { wordBytes: _words, related: _related, ...tableHeader } = header;
  return {
    header: tableHeader,
    lexicon,
    ranks,
    scales,
    codes: new Uint8Array(file.buffer, file.byteOffset + at, codesLength),
    relatedStarts,
    relatedRows,
  };
}

/** The numbers after the words: typed-array views of an aligned copy, in the machine's byte order. */
function readNumbers(unpacked: Buffer, at: number, count: number, related: number): Pick<WordTable, 'ranks' | 'scales' | 'relatedStarts' | 'relatedRows'> {
  const rows = count * 12 + 4;
  const copy = unpacked.buffer.slice(unpacked.byteOffset + at, unpacked.byteOffset + at + rows + related * 4);
  // Every number is four bytes wide: reversing each group of four turns the file's little-endian order into big-endian.
  if (!LITTLE_ENDIAN) Buffer.from(copy).swap32();
  return {
    ranks: new Uint32Array(copy, 0, count),
    scales: new Float32Array(copy, count * 4, count),
    relatedStarts: new Uint32Array(copy, count * 8, count + 1),
    relatedRows: new Uint32Array(copy, rows, related),
  };
}

function l2(v: Float32Array): number {
  let s = 0;
  for (let i = 0; i < v.length; i += 1) s += v[i]! * v[i]!;
  return Math.sqrt(s);
}
