import { useDocumentTitle } from '../../lib/page';
import { ExportSection } from './export-section';
import { ImportSection } from './import-section';
import './site.css';

/** The site as files (`/site`): export every post as a zip, import a zip after a dry run. */
export default function SitePage() {
  useDocumentTitle('Site');
  return (
    <>
      <h1>Site</h1>
      <ExportSection />
      <ImportSection />
    </>
  );
}
