import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { nodeVersionProblem } from './node-version.js';

describe('nodeVersionProblem', () => {
  it.each(['20.19.0', '20.20.2', '22.12.0', '22.21.1', '24.0.0', '24.11.1', '25.2.0'])('lets Node %s run', (version) => {
    expect(nodeVersionProblem(version)).toBeNull();
  });

  it.each(['18.19.1', '16.20.2', '20.18.3', '20.12.0', '21.7.3', '22.11.0', '23.11.0', '0.10.48'])(
    'refuses Node %s in plain words: the version found, the versions needed, what to do',
    (version) => {
      const problem = nodeVersionProblem(version);
      expect(problem).toContain(`cannot run on Node.js ${version}`);
      expect(problem).toContain('it needs Node.js 20.19+, 22.12+, 24.0+');
      expect(problem).toContain('Install a supported Node.js');
    },
  );

  it('agrees with the engines field of package.json: each line from its first version, not the minor before it', () => {
    const { engines } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { engines: { node: string } };
    const ranges = engines.node.split('||').map((range) => range.trim());
    const firsts = ranges.map((range) => /^\^(\d+)\.(\d+)\.0$/.exec(range));
    expect(firsts, `engines.node is "${engines.node}": keep src/node-version.ts's lines in step with it`).not.toContain(null);
    for (const [, major, minor] of firsts as RegExpExecArray[]) {
      expect(nodeVersionProblem(`${major}.${minor}.0`), `${major}.${minor}.0`).toBeNull();
      if (minor !== '0') expect(nodeVersionProblem(`${major}.${Number(minor) - 1}.9`), `${major}.${Number(minor) - 1}.9`).not.toBeNull();
    }
    const oldest = Math.min(...firsts.map((m) => Number(m![1])));
    expect(nodeVersionProblem(`${oldest - 1}.99.0`)).not.toBeNull();
  });
});
