// Prints the slowest test files of a vitest JSON report (`make test-unit` writes
// test-results/vitest.json): where the suite's time goes, for keeping CI inside its budget.
// Usage: node scripts/slowest-tests.mjs [report] [count]
import { existsSync, readFileSync } from 'node:fs';
import { relative } from 'node:path';

const [report = 'test-results/vitest.json', count = '15'] = process.argv.slice(2);
if (!existsSync(report)) {
  console.log(`no ${report}: the suite did not get as far as writing it`);
  process.exit(0);
}
const { testResults, startTime } = JSON.parse(readFileSync(report, 'utf8'));
const files = testResults
  .map((file) => ({ name: relative(process.cwd(), file.name), ms: file.endTime - file.startTime, tests: file.assertionResults.length }))
  .sort((a, b) => b.ms - a.ms);
const total = files.reduce((sum, file) => sum + file.ms, 0);
const wall = Math.max(...testResults.map((file) => file.endTime)) - startTime;
console.log(
  `--- ${files.length} test files, ${(total / 1000).toFixed(0)} s in test files over ${(wall / 1000).toFixed(0)} s; the slowest ${count}:`,
);
for (const file of files.slice(0, Number(count))) {
  console.log(`${(file.ms / 1000).toFixed(1).padStart(7)} s  ${String(file.tests).padStart(4)} tests  ${file.name}`);
}
