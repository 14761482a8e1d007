import { describe, expect, it } from 'vitest';
import bundle from '../../../generated/openapi.json' with { type: 'json' };
import { fieldMessage } from './field-messages.js';

/** The `pattern`s of the contract's parameters and request bodies' schemas (responses' left out). */
function requestPatterns(): string[] {
  const found = new Set<string>();
  const walk = (node: unknown, inResponse: boolean): void => {
    if (node === null || typeof node !== 'object') return;
    for (const [key, value] of Object.entries(node)) {
      if (key === 'pattern' && typeof value === 'string' && !inResponse) found.add(value);
      walk(value, inResponse || key === 'responses' || key === 'headers');
    }
  };
  walk(bundle.paths, false);
  const { parameters } = bundle.components as { parameters: Record<string, unknown> };
  walk(parameters, false);
  return [...found];
}

describe('fieldMessage', () => {
  it('says the length, count, range, type, enum and format keywords in words', () => {
    expect(fieldMessage({ keyword: 'minLength', params: { limit: 1 } })).toBe('must not be empty');
    expect(fieldMessage({ keyword: 'minLength', params: { limit: 8 } })).toBe('must be at least 8 characters long');
    expect(fieldMessage({ keyword: 'maxLength', params: { limit: 200 } })).toBe('must be at most 200 characters long');
    expect(fieldMessage({ keyword: 'maxItems', params: { limit: 20 } })).toBe('must have at most 20 entries');
    expect(fieldMessage({ keyword: 'minimum', params: { limit: 1, comparison: '>=' } })).toBe('must be at least 1');
    expect(fieldMessage({ keyword: 'type', params: { type: 'string,null' } })).toBe('must be text or null');
    expect(fieldMessage({ keyword: 'enum', params: { allowedValues: ['draft', 'published'] } })).toBe('must be one of: draft, published');
    expect(fieldMessage({ keyword: 'format', params: { format: 'uri' } })).toBe('must be an absolute URL');
    expect(fieldMessage({ keyword: 'pattern', params: { pattern: '^[a-z0-9]+(?:-[a-z0-9]+)*$' } })).toBe(
      'may contain only lowercase letters, digits and single hyphens between them',
    );
  });

  it('keeps the message of a keyword it does not word', () => {
    expect(fieldMessage({ keyword: 'const', params: {}, message: 'must be equal to constant' })).toBe('must be equal to constant');
  });

  it('words every pattern a request may break (a new one in the contract needs words here)', () => {
    const patterns = requestPatterns();
    expect(patterns.length).toBeGreaterThan(3);
    const unworded = patterns.filter((pattern) => fieldMessage({ keyword: 'pattern', params: { pattern } }).includes(pattern));
    expect(unworded).toEqual([]);
  });
});
