import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { createBrowserRouter, RouterProvider } from 'react-router';
import { AppProviders, createQueryClient } from './app/providers';
import { AppRoutes } from './app/routes';
import { createSession, type Session } from './lib/session';
import './styles.css';

// A data router (the editor's guard against leaving with unsaved changes needs one), whose one
// route renders the app's routes.
const router = createBrowserRouter([{ path: '*', element: <AppRoutes /> }], { basename: '/admin' });

/** `make dev` only: the panel that arms a `Prefer` for the mock (admin/src/dev) beside the app. */
function withDevPanel(session: Session): Session {
  void import('./dev/dev-panel').then(({ mountDevPanel }) => mountDevPanel(session));
  return session;
}

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root');
createRoot(root).render(
  <StrictMode>
    {/* import.meta.env.DEV is false in a build: the panel, its chunk and its CSS are left out of dist/admin. */}
    <AppProviders session={import.meta.env.DEV ? withDevPanel(createSession()) : createSession()} queryClient={createQueryClient()}>
      <RouterProvider router={router} />
    </AppProviders>
  </StrictMode>,
);
