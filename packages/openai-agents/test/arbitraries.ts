/**
 * fast-check arbitraries of Agents SDK items of every type, with the values
 * JSON cannot hold (undefined, NaN, -0, bytes, NUL, lone surrogates, `$` and
 * prototype keys) where the protocol lets an item carry them.
 */
import type { AgentInputItem } from '@openai/agents-core';
import { protocol } from '@openai/agents-core';
import fc from 'fast-check';

/** Text, sometimes with NUL or a lone surrogate. */
export const text = fc.oneof({ weight: 4, arbitrary: fc.string() }, fc.string({ unit: 'binary' }), fc.constantFrom('', 'a\u0000b', '\uD800', 'x\uDC00'));

const key = fc.oneof(fc.string(), fc.constantFrom('$', 'constructor', 'prototype', 'a\u0000', 'v'));
const odd = fc.constantFrom<unknown>(undefined, Number.NaN, -0, Number.POSITIVE_INFINITY, new Uint8Array([0, 255, 7]));
const value: fc.Arbitrary<unknown> = fc.letrec<{ v: unknown }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.jsonValue({ maxDepth: 1 }),
    text,
    odd,
    fc.array(tie('v'), { maxLength: 3 }),
    fc.dictionary(key, tie('v'), { maxKeys: 3 }),
  ),
})).v;

/** The fields every item may carry. */
const common = { id: text, providerData: fc.dictionary(key, value, { maxKeys: 3 }) };
const optional = <T extends Record<string, fc.Arbitrary<unknown>>>(required: T, extra: Record<string, fc.Arbitrary<unknown>> = {}) =>
  fc.record({ ...common, ...extra, ...required }, { requiredKeys: Object.keys(required) as (keyof T & string)[] });

const status = fc.constantFrom('in_progress', 'completed', 'incomplete');
const inputContent = fc.oneof(
  fc.record({ type: fc.constant('input_text'), text }),
  fc.record({ type: fc.constant('input_image'), image: fc.webUrl(), detail: fc.constantFrom('auto', 'low', 'high') }),
  fc.record({ type: fc.constant('input_file'), file: fc.webUrl() }),
);
const outputContent = fc.oneof(fc.record({ type: fc.constant('output_text'), text }), fc.record({ type: fc.constant('refusal'), refusal: text }));

const items: fc.Arbitrary<unknown>[] = [
  optional({ role: fc.constant('user'), content: fc.oneof(text, fc.array(inputContent, { maxLength: 4 })) }, { type: fc.constant('message') }),
  optional({ role: fc.constant('system'), content: text }, { type: fc.constant('message') }),
  optional({ role: fc.constant('assistant'), status, content: fc.array(outputContent, { maxLength: 4 }) }, { type: fc.constant('message') }),
  optional({ type: fc.constant('function_call'), callId: text, name: text, arguments: text }, { status }),
  optional({
    type: fc.constant('function_call_result'),
    callId: text,
    name: text,
    status,
    output: fc.oneof(text, fc.record({ type: fc.constant('text'), text }), fc.array(inputContent, { maxLength: 3 })),
  }),
  optional({
    type: fc.constant('reasoning'),
    content: fc.array(fc.record({ type: fc.constant('input_text'), text }), { maxLength: 3 }),
    rawContent: fc.array(fc.record({ type: fc.constant('reasoning_text'), text }), { maxLength: 2 }),
  }),
  optional({ type: fc.constant('hosted_tool_call'), name: text }, { status, arguments: text, output: text }),
  optional({
    type: fc.constant('computer_call'),
    callId: text,
    status,
    action: fc.record({ type: fc.constant('click'), x: fc.integer(), y: fc.integer(), button: fc.constant('left') }),
  }),
  optional({ type: fc.constant('computer_call_result'), callId: text, output: fc.record({ type: fc.constant('computer_screenshot'), data: text }) }),
  optional({ type: fc.constant('shell_call'), callId: text, status, action: fc.record({ commands: fc.array(text, { maxLength: 3 }) }) }),
  optional({
    type: fc.constant('shell_call_output'),
    callId: text,
    output: fc.array(fc.record({ stdout: text, stderr: text, outcome: fc.record({ type: fc.constant('exit'), exitCode: fc.integer({ min: 0, max: 255 }) }) }), {
      maxLength: 2,
    }),
  }),
  optional({ type: fc.constant('apply_patch_call'), callId: text, status, operation: fc.record({ type: fc.constant('delete_file'), path: text }) }),
  optional({ type: fc.constant('apply_patch_call_output'), callId: text, status: fc.constantFrom('completed', 'failed') }, { output: text }),
  optional({ type: fc.constant('compaction'), encrypted_content: text }),
  optional({ type: fc.constant('unknown') }, { payload: value }),
];

/** An item of any type that the SDK's own schema accepts. */
export const anyItem: fc.Arbitrary<AgentInputItem> = fc
  .oneof(...items)
  .filter((item) => protocol.ModelItem.safeParse(item).success) as fc.Arbitrary<AgentInputItem>;

/** The item types {@link anyItem} covers, for a check that none is filtered away. */
export const ITEM_KINDS = items.length;
