import { describe, expect, it } from 'vitest';
import { functionLengths, isProduction, MAX_LINES, productionFunctions } from '../../scripts/function-length.js';

describe('scripts/function-length.ts', () => {
  it('counts each function, arrow and method from the line it starts on to the line it ends on', () => {
    const text = [
      'export function outer() {',
      '  const inner = () => {',
      '    return 1;',
      '  };',
      '  return inner;',
      '}',
      'class A {',
      '  m() { return 2; }',
      '}',
    ].join('\n');
    expect(functionLengths('src/x.ts', text).map(({ name, line, lines }) => ({ name, line, lines }))).toEqual([
      { name: 'outer', line: 1, lines: 6 },
      { name: 'inner', line: 2, lines: 3 },
      { name: 'm', line: 8, lines: 1 },
    ]);
  });

  it('counts production code of src/ only: no tests, contract suites, store cases or declarations', () => {
    expect(isProduction('src/adapters/http/app.ts')).toBe(true);
    expect(isProduction('src/adapters/http/app.test.ts')).toBe(false);
    expect(isProduction('src/adapters/contract/fixtures.ts')).toBe(false);
    expect(isProduction('src/adapters/contract/post-repository.contract.ts')).toBe(false);
    expect(isProduction('src/adapters/drizzle/store-cases.ts')).toBe(false);
    expect(isProduction('src/adapters/http/rate-limiter-flexible.d.ts')).toBe(false);
    expect(isProduction('scripts/function-length.ts')).toBe(false);
  });

  it(`finds no production function of src/ longer than ${MAX_LINES} lines`, () => {
    const tooLong = productionFunctions().filter((f) => f.lines > MAX_LINES);
    expect(tooLong.map((f) => `${f.file}:${f.line} ${f.name} (${f.lines} lines)`)).toEqual([]);
  });
});
