import { Link } from 'react-router';

/** What a path of the admin that names no page shows. */
export function NotFoundPage() {
  return (
    <main id="main" className="page">
      <h1>Page not found</h1>
      <p>
        There is no page here. <Link to="/">Go to the admin's home</Link>.
      </p>
    </main>
  );
}
