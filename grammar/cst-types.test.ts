/** The committed CST types (cst-types.ts) cannot go stale: they must be what the grammar generates now. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { cstTypesSource } from './gen-cst-types.js';

describe('the generated CST types', () => {
  it('are what the grammar gives now (regenerate them with grammar/gen-cst-types.ts)', () => {
    const committed = readFileSync(new URL('./cst-types.ts', import.meta.url), 'utf8');
    expect(cstTypesSource()).toBe(committed);
  });
});
