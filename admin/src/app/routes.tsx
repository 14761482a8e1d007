import { lazy, Suspense } from 'react';
import { Navigate, Route, Routes } from 'react-router';
import { NotFoundPage } from '../components/not-found-page';
import { useFocusOnNavigation } from '../lib/page';
import { RequireSession } from '../features/auth/require-session';
import { SignInPage } from '../features/auth/sign-in-page';
import { PostsPage } from '../features/posts/posts-page';
import { Shell } from './shell';

/** The editor and what only it needs (the conflict banner's diff) load on demand, out of the first load (#30: ≤ 200 KB gzipped). */
const EditorPage = lazy(() => import('../features/editor/editor-page'));

/** The dashboard (stats, tags, activity) loads on demand too. */
const DashboardPage = lazy(() => import('../features/dashboard/dashboard-page'));

/** A post's history (revisions, their diffs, restore) loads on demand. */
const HistoryPage = lazy(() => import('../features/history/history-page'));

/** The site's export and import load on demand. */
const SitePage = lazy(() => import('../features/site/site-page'));

const editor = (
  <Suspense fallback={<p aria-live="polite">Loading the editor…</p>}>
    <EditorPage />
  </Suspense>
);

/** The admin's routes, below /admin/ (the router's basename). */
export function AppRoutes() {
  useFocusOnNavigation();
  return (
    <Routes>
      <Route path="/sign-in" element={<SignInPage />} />
      <Route
        element={
          <RequireSession>
            <Shell />
          </RequireSession>
        }
      >
        <Route index element={<Navigate to="/posts" replace />} />
        <Route path="/posts" element={<PostsPage />} />
        <Route path="/posts/new" element={editor} />
        <Route path="/posts/:id" element={editor} />
        <Route
          path="/posts/:id/history"
          element={
            <Suspense fallback={<p aria-live="polite">Loading the history…</p>}>
              <HistoryPage />
            </Suspense>
          }
        />
        <Route
          path="/site"
          element={
            <Suspense fallback={<p aria-live="polite">Loading the site page…</p>}>
              <SitePage />
            </Suspense>
          }
        />
        <Route
          path="/dashboard"
          element={
            <Suspense fallback={<p aria-live="polite">Loading the dashboard…</p>}>
              <DashboardPage />
            </Suspense>
          }
        />
      </Route>
      <Route path="*" element={<NotFoundPage />} />
    </Routes>
  );
}
