// @vitest-environment jsdom
import { cleanup, render, screen } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { afterEach, expect, it } from 'vitest';
import { createSession } from '../lib/session';
import { AppProviders, createQueryClient } from './providers';
import { AppRoutes } from './routes';

afterEach(cleanup);

it('answers a path that names no page with a "Page not found" main landmark and a link home', () => {
  render(
    <AppProviders session={createSession({ baseUrl: 'http://admin.test/api/v1' })} queryClient={createQueryClient()}>
      <MemoryRouter initialEntries={['/no/such/page']}>
        <AppRoutes />
      </MemoryRouter>
    </AppProviders>,
  );
  const main = screen.getByRole('main');
  expect(main.querySelector('h1')?.textContent).toBe('Page not found');
  expect(screen.getByRole('link', { name: "Go to the admin's home" }).getAttribute('href')).toBe('/');
});
