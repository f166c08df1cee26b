/**
 * The offline default embedder: static GloVe word vectors, no model, no
 * download. A text's vector is the weighted sum of its words' vectors, with
 * smooth-inverse-frequency weights (frequent words count little), hashed
 * trigram vectors for words outside the table, and unit L2 length (the zero
 * vector for a text with no tokens). Tokens are core's `tokenize`, so the
 * embedder sees exactly the words lexical matching sees. The table also
 * carries, per word, the words WordNet relates to it that the vectors agree
 * with: `relatedTokens` hands them to hybrid recall's lexical leg.
 */
import { tokenize } from '@agentstate/core';
import type { Embedder } from '@agentstate/core';
import { CODE_MIDPOINT, type WordTable } from './format.js';
import { addHashedVector } from './oov.js';
import { loadShippedTable, loadShippedTableSync } from './table.js';
import { TABLE_INFO } from './table-info.js';
import { isMinorToken } from './tokens.js';
import { normalizeInPlace } from '../vector.js';

/**
 * Version of the weighting below. Bump it whenever a constant or a rule in
 * this file changes the vectors, so the embedder id (and every cache keyed by
 * it) changes too.
 */
const WEIGHTING_VERSION = 1;
/** SIF's `a` in a / (a + p(w)). */
const SIF_A = 1e-3;
/** Euler–Mascheroni: H(n) ≈ ln n + γ normalises the Zipf estimate of p(w). */
const EULER_GAMMA = 0.5772156649;
/** Weight of a word outside the table, relative to a table word of median norm and weight 1. */
const OOV_WEIGHT = 1.5;
/** Weight of an all-digit or one-character token (dates, versions, the `s` of `user's`). */
const MINOR_WEIGHT = 0.2;

/**
 * The cosine similarity above which two texts count as semantically close
 * under this embedder. See the README for how it was chosen.
 */
export const STATIC_SIMILARITY_THRESHOLD = 0.55;

/** The static embedder's id: table content hash and weighting version. */
export const STATIC_EMBEDDER_ID = `agentstate/static-glove-100d-q4@${TABLE_INFO.sha256.slice(0, 12)}+sif-v${WEIGHTING_VERSION}`;

/** An {@link Embedder} over the shipped static word vectors. */
export interface StaticEmbedder extends Embedder {
  readonly similarityThreshold: number;
  /** One unit-length (or zero) vector per text; loads the table on first use. */
  embed(texts: readonly string[]): Promise<Float32Array[]>;
  /** Like `embed`, synchronously; loads the table synchronously if not loaded yet. */
  embedSync(texts: readonly string[]): Float32Array[];
  /** Loads the table now (once per process, shared by every static embedder); optional. */
  load(): Promise<void>;
  /**
   * The table's related words (WordNet synonyms and near senses that the
   * word vectors agree with) of each token, without the tokens themselves:
   * hybrid recall and search also match them in their lexical leg.
   */
  relatedTokens(tokens: readonly string[]): Promise<string[]>;
}

interface Model {
  readonly table: WordTable;
  /** Per word: SIF weight × quantisation scale. */
  readonly coefficients: Float32Array;
  /** Norm given to a hashed out-of-table vector of weight 1. */
  readonly oovNorm: number;
}

let loading: Promise<Model> | undefined;
let loaded: Model | undefined;

function prepare(table: WordTable): Model {
  const zipfNorm = Math.log(table.header.sourceWords) + EULER_GAMMA;
  const coefficients = new Float32Array(table.header.count);
  for (let w = 0; w < coefficients.length; w += 1) {
    const p = 1 / ((table.ranks[w]! + 1) * zipfNorm);
    coefficients[w] = (SIF_A / (SIF_A + p)) * table.scales[w]!;
  }
  return { table, coefficients, oovNorm: table.header.medianNorm };
}

function loadModel(): Promise<Model> {
  if (loaded) return Promise.resolve(loaded);
  loading ??= loadShippedTable().then(
    (table) => (loaded ??= prepare(table)),
    (error: unknown) => {
      loading = undefined;
      throw error;
    },
  );
  return loading;
}

function loadModelSync(): Model {
  loaded ??= prepare(loadShippedTableSync());
  return loaded;
}

function embedText(model: Model, text: string): Float32Array {
  const { table, coefficients, oovNorm } = model;
  const dims = table.header.dimensions;
  const half = dims / 2;
  const codes = table.codes;
  const sum = new Float64Array(dims);
  for (const token of tokenize(text)) {
    const row = table.lexicon.get(token);
    if (row !== undefined) {
      const c = coefficients[row]!;
      const base = row * half;
      for (let i = 0; i < half; i += 1) {
        const byte = codes[base + i]!;
        sum[2 * i]! += c * ((byte & 15) - CODE_MIDPOINT);
        sum[2 * i + 1]! += c * ((byte >> 4) - CODE_MIDPOINT);
      }
    } else {
      addHashedVector(token, sum, oovNorm * (isMinorToken(token) ? MINOR_WEIGHT : OOV_WEIGHT));
    }
  }
  return normalizeInPlace(Float32Array.from(sum));
}

function relatedOf(model: Model, tokens: readonly string[]): string[] {
  const { lexicon, relatedStarts, relatedRows } = model.table;
  const given = new Set(tokens);
  const out = new Set<string>();
  for (const token of given) {
    const row = lexicon.get(token);
    if (row === undefined) continue;
    for (let i = relatedStarts[row]!; i < relatedStarts[row + 1]!; i += 1) {
      const word = lexicon.word(relatedRows[i]!);
      if (!given.has(word)) out.add(word);
    }
  }
  return [...out];
}

/**
 * Creates the offline default embedder. Creating it is free; the table
 * (7.8 MB on disk) is read on the first `embed` or `load()` and shared by every
 * static embedder in the process.
 */
export function createStaticEmbedder(): StaticEmbedder {
  return {
    id: STATIC_EMBEDDER_ID,
    dimensions: TABLE_INFO.dimensions,
    similarityThreshold: STATIC_SIMILARITY_THRESHOLD,
    async embed(texts) {
      const model = await loadModel();
      return texts.map((text) => embedText(model, text));
    },
    embedSync(texts) {
      const model = loadModelSync();
      return texts.map((text) => embedText(model, text));
    },
    async load() {
      await loadModel();
    },
    async relatedTokens(tokens) {
      return relatedOf(await loadModel(), tokens);
    },
  };
}
