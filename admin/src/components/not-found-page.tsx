import { Link } from 'react-router';
import { useDocumentTitle } from '../lib/page';

/** What a path of the admin that names no page shows. */
export function NotFoundPage() {
  useDocumentTitle('Page not found');
  return (
    <main id="main" className="page" tabIndex={-1}>
      <h1>Page not found</h1>
      <p>
        There is no page here. <Link to="/">Go to the admin's home</Link>.
      </p>
    </main>
  );
}
