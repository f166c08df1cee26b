/** The one rendering of a scope that every face uses (tables, messages, errors, resources). */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { describeScope, GLOBAL_SCOPE, type Scope } from '../src/index.js';

const level = fc.oneof(fc.constant(''), fc.string({ maxLength: 6 }), fc.constantFrom('web', 'a/b', 'x y', '"q"', '=', ' '));
const scope = fc.record({ instance: level, project: level, workspace: level });

describe('describeScope', () => {
  it('names the global scope `global`, and otherwise only the set levels, quoted', () => {
    expect(describeScope(GLOBAL_SCOPE)).toBe('global');
    expect(describeScope({ instance: '', project: 'web', workspace: '' })).toBe('project="web"');
    expect(describeScope({ instance: 'acme', project: '', workspace: 'api' })).toBe('instance="acme" workspace="api"');
    expect(describeScope({ instance: 'a b', project: 'c/d', workspace: 'e"f' })).toBe('instance="a b" project="c/d" workspace="e\\"f"');
  });

  it('tells every two different scopes apart, whatever their names hold', () => {
    fc.assert(
      fc.property(scope, scope, (a: Scope, b: Scope) => {
        const same = a.instance === b.instance && a.project === b.project && a.workspace === b.workspace;
        expect(describeScope(a) === describeScope(b)).toBe(same);
      }),
      { numRuns: 500 },
    );
  });
});
