import type { components, ImportReport } from '../../../../src/client/index.js';

type ImportItem = components['schemas']['ImportItem'];
type SkipReason = components['schemas']['ImportSkipReason'];

const REASONS: Record<SkipReason, string> = {
  not_a_post: 'Not a post',
  page: 'A page, not a post',
  too_large: 'Too large',
  invalid_front_matter: 'Front matter not readable',
  invalid_post: 'Not a valid post',
  slug_taken: 'Slug taken by another post',
  duplicate: 'Named twice in the archive',
  checksum_mismatch: 'Not what the manifest lists',
  conflict: 'The post changed meanwhile',
  deleted: 'A deleted post',
  image_refused: 'An image the library refuses',
  image_limit: 'Beyond the images an import stores',
};

const ACTIONS: Record<ImportItem['action'], { 'dry-run': string; apply: string }> = {
  create: { 'dry-run': 'Would create', apply: 'Created' },
  update: { 'dry-run': 'Would update', apply: 'Updated' },
  unchanged: { 'dry-run': 'Unchanged', apply: 'Unchanged' },
  skip: { 'dry-run': 'Would skip', apply: 'Skipped' },
};

/** Why a file is skipped; else what it becomes in words (its status, what changes), and a note (a file not what the manifest lists). */
function details(item: ImportItem): string {
  if (item.action === 'skip') return [item.reason ? REASONS[item.reason] : 'Skipped', item.detail].filter(Boolean).join(': ');
  return [item.summary, item.detail].filter(Boolean).join(' ');
}

/** One sentence of the counts: "4 files: 2 to create, 1 to update, 0 unchanged, 1 to skip." */
function summary(report: ImportReport): string {
  const { files, create, update, unchanged, skip } = report.counts;
  const head = `${files} ${files === 1 ? 'file' : 'files'}`;
  return report.mode === 'dry-run'
    ? `${head}: ${create} to create, ${update} to update, ${unchanged} unchanged, ${skip} to skip.`
    : `${head}: ${create} created, ${update} updated, ${unchanged} unchanged, ${skip} skipped.`;
}

/** An import's report, file by file in the archive's order, with what happens to each and why. */
export function ImportReportView({ report, id }: { report: ImportReport; id: string }) {
  const title = report.mode === 'dry-run' ? 'Dry run: nothing written yet' : 'Imported';
  return (
    <section aria-labelledby={id} className="import-report">
      <h3 id={id}>{title}</h3>
      <p>
        {summary(report)}
        {report.source === 'margincms' ? ' The archive is a MarginCMS export (checked against its manifest).' : ''}
      </p>
      {report.items.length > 0 && (
        <div className="table-scroll">
          <table>
            <thead>
              <tr>
                <th scope="col">File</th>
                <th scope="col">{report.mode === 'dry-run' ? 'What would happen' : 'What happened'}</th>
                <th scope="col">Post</th>
                <th scope="col">Details</th>
              </tr>
            </thead>
            <tbody>
              {report.items.map((item) => (
                <tr key={item.path} className={`import-${item.action}`}>
                  <td className="path">{item.path}</td>
                  <td>{ACTIONS[item.action][report.mode]}</td>
                  <td>{item.slug ?? ''}</td>
                  <td>{details(item)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
