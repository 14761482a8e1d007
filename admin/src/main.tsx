import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { BrowserRouter } from 'react-router';
import { AppProviders, createQueryClient } from './app/providers';
import { AppRoutes } from './app/routes';
import { createSession } from './lib/session';
import './styles.css';

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root');
createRoot(root).render(
  <StrictMode>
    <AppProviders session={createSession()} queryClient={createQueryClient()}>
      <BrowserRouter basename="/admin">
        <AppRoutes />
      </BrowserRouter>
    </AppProviders>
  </StrictMode>,
);
