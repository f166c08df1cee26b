/**
 * The parts of a structured turn (docs/contract.md §2): what a model said,
 * thought, called and got back, as the provider SDKs shape it. One schema
 * serves the inputs and the decoder, so a part reads back exactly as written.
 */
import { z } from 'zod';
import { canonicalJson } from '../log/json.js';
import { idField, longTextField, shortTextField, textField } from './fields.js';
import { jsonValueField, metadataField } from './json.js';
import { LIMITS } from './limits.js';

/** Provider data a part may carry (cache hints, signatures, ids): optional on every part. */
const partMetadata = { metadata: metadataField.optional() };

/** A required, non-empty short name (a tool's, a data part's, a media type). */
const nameField = shortTextField.min(1, 'must not be empty');

/** Standard or URL-safe base64, padded or not. */
const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;

/** Text the model produced or was given. */
export const textPartSchema = z.strictObject({ type: z.literal('text'), text: longTextField, ...partMetadata });

/** The model's reasoning, kept apart from what it said. */
export const reasoningPartSchema = z.strictObject({ type: z.literal('reasoning'), text: longTextField, ...partMetadata });

/** A tool call the model made. */
export const toolCallPartSchema = z.strictObject({
  type: z.literal('tool-call'),
  callId: idField,
  toolName: nameField,
  input: jsonValueField(LIMITS.longText),
  ...partMetadata,
});

/**
 * What a tool call returned; `isError` when the tool failed. `isError` may be
 * left out and is then `false`: the provider SDKs' tool results mostly omit it.
 */
export const toolResultPartSchema = z.strictObject({
  type: z.literal('tool-result'),
  callId: idField,
  toolName: nameField,
  output: jsonValueField(LIMITS.longText),
  isError: z.boolean().default(false),
  ...partMetadata,
});

/** A file, by reference (`url`) or inline (`data`, base64): exactly one of the two. */
export const filePartSchema = z
  .strictObject({
    type: z.literal('file'),
    mediaType: nameField,
    url: textField(LIMITS.url).min(1, 'must not be empty').optional(),
    data: textField(LIMITS.inlineData).regex(BASE64, 'must be base64').optional(),
    filename: shortTextField.optional(),
    ...partMetadata,
  })
  .refine((part) => (part.url === undefined) !== (part.data === undefined), { message: 'give exactly one of url and data', path: ['url'] });

/** Structured data with a name. */
export const dataPartSchema = z.strictObject({ type: z.literal('data'), name: nameField, data: jsonValueField(LIMITS.longText), ...partMetadata });

/** One part of a turn, discriminated on `type`; its canonical JSON is at most {@link LIMITS.longText} characters. */
export const partSchema = z
  .discriminatedUnion('type', [textPartSchema, reasoningPartSchema, toolCallPartSchema, toolResultPartSchema, filePartSchema, dataPartSchema])
  .superRefine((part, ctx) => {
    const length = canonicalJson(part).length;
    if (length > LIMITS.longText) ctx.addIssue({ code: 'custom', message: `at most ${LIMITS.longText} characters of JSON (this is ${length})` });
  });

/** One part of a turn. */
export type Part = z.infer<typeof partSchema>;

/** A turn's parts: at most {@link LIMITS.parts}. */
export const partsField = z.array(partSchema).max(LIMITS.parts, `at most ${LIMITS.parts} parts`);

/**
 * The text rendering of parts that recall indexes (docs/contract.md §2): the
 * text parts joined with a newline.
 */
export function renderPartsText(parts: readonly Part[]): string {
  return parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('\n');
}

/** The parts of a turn given as content alone: one text part, or none for `''`. */
export function partsFromContent(content: string): Part[] {
  return content === '' ? [] : [{ type: 'text', text: content }];
}
