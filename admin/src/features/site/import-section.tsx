import { useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import type { ImportMode, ImportReport } from '../../../../src/client/index.js';
import { Field } from '../../components/field';
import { ProblemAlert } from '../../components/problem-alert';
import { problemOf, unreachable, type ApiProblem } from '../../lib/problem';
import { useSession } from '../../lib/session';
import { sizeOf } from './download';
import { ImportReportView } from './import-report';

/** How far the import of the chosen file has come. */
type Stage = { kind: 'chosen' } | { kind: 'checked'; report: ImportReport } | { kind: 'applied'; report: ImportReport };

/**
 * The import: a zip chosen here goes first as a dry run (`mode=dry-run`), whose report says file by
 * file what would happen; "Apply" sends the same file for real (`mode=apply`) and shows what did.
 * Nothing is written before Apply. An applied import may change any post, so every query is
 * refreshed.
 */
export function ImportSection() {
  const { client } = useSession();
  const queryClient = useQueryClient();
  const [file, setFile] = useState<File | null>(null);
  const [stage, setStage] = useState<Stage>({ kind: 'chosen' });
  const [pending, setPending] = useState<ImportMode | null>(null);
  const [problem, setProblem] = useState<ApiProblem | null>(null);
  const [status, setStatus] = useState('');

  function choose(chosen: File | null) {
    setFile(chosen);
    setStage({ kind: 'chosen' });
    setProblem(null);
    setStatus('');
  }

  async function send(mode: ImportMode) {
    if (!file || pending) return;
    setPending(mode);
    setProblem(null);
    setStatus('');
    try {
      const result = await client.importSite(file, mode);
      if (result.error !== undefined) {
        setProblem(problemOf(result.error, result.response));
        return;
      }
      const report = result.data;
      if (mode === 'apply') {
        setStage({ kind: 'applied', report });
        void queryClient.invalidateQueries();
        setStatus('The import is done.');
      } else {
        setStage({ kind: 'checked', report });
        setStatus('The dry run is done: nothing was written.');
      }
    } catch {
      setProblem(unreachable());
    } finally {
      setPending(null);
    }
  }

  function check(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    void send('dry-run');
  }

  const writes = stage.kind === 'checked' ? stage.report.counts.create + stage.report.counts.update : 0;
  return (
    <section aria-labelledby="import-title" className="site-section">
      <h2 id="import-title">Import</h2>
      <p>
        A zip of markdown files with front matter: a MarginCMS export, or the content of a Hugo, Jekyll or Astro site. A dry run first shows
        what would happen to each file; nothing is written until you apply it.
      </p>
      <form onSubmit={check} noValidate aria-labelledby="import-title">
        <Field id="import-file" label="Zip archive" hint={file ? `${file.name}, ${sizeOf(file.size)}` : 'A .zip file.'}>
          {(p) => (
            <input
              id={p.id}
              type="file"
              accept=".zip,application/zip"
              onChange={(e) => choose(e.target.files?.[0] ?? null)}
              aria-describedby={p.describedBy}
            />
          )}
        </Field>
        <button type="submit" disabled={!file || pending !== null}>
          {pending === 'dry-run' ? 'Checking…' : 'Check it (dry run)'}
        </button>
      </form>
      {problem && <ProblemAlert error={problem} />}
      <p aria-live="polite">{status}</p>
      {stage.kind !== 'chosen' && <ImportReportView report={stage.report} id="import-report-title" />}
      {stage.kind === 'checked' &&
        (writes > 0 ? (
          <div className="actions">
            <button type="button" onClick={() => void send('apply')} disabled={pending !== null}>
              {pending === 'apply' ? 'Importing…' : 'Apply the import'}
            </button>
            <span className="hint">Writes what the dry run says, each post with its own revision.</span>
          </div>
        ) : (
          <p>Nothing to import: every file is unchanged or skipped.</p>
        ))}
    </section>
  );
}
