import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { createBrowserRouter, RouterProvider } from 'react-router';
import { AppProviders, createQueryClient } from './app/providers';
import { AppRoutes } from './app/routes';
import { createSession } from './lib/session';
import './styles.css';

// A data router (the editor's guard against leaving with unsaved changes needs one), whose one
// route renders the app's routes.
const router = createBrowserRouter([{ path: '*', element: <AppRoutes /> }], { basename: '/admin' });

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root');
createRoot(root).render(
  <StrictMode>
    <AppProviders session={createSession()} queryClient={createQueryClient()}>
      <RouterProvider router={router} />
    </AppProviders>
  </StrictMode>,
);
