import { lazy, Suspense, type ComponentType } from 'react';
import { Navigate, Route, Routes } from 'react-router';
import { NotFoundPage } from '../components/not-found-page';
import { useFocusOnNavigation } from '../lib/page';
import { RequireSession } from '../features/auth/require-session';
import { SignInPage } from '../features/auth/sign-in-page';
import { PostsPage } from '../features/posts/posts-page';
import { Shell } from './shell';

/**
 * Every page but sign-in and the posts list loads on demand, out of the first load (#30: ≤ 200 KB
 * gzipped): the editor (with CodeMirror and the conflict banner's diff), a post's history, the
 * dashboard, the site's export and import, the media library and the
 * webhooks.
 */
const EditorPage = lazy(() => import('../features/editor/editor-page'));
const HistoryPage = lazy(() => import('../features/history/history-page'));
const DashboardPage = lazy(() => import('../features/dashboard/dashboard-page'));
const SitePage = lazy(() => import('../features/site/site-page'));
const MediaPage = lazy(() => import('../features/media/media-page'));
const WebhooksPage = lazy(() => import('../features/webhooks/webhooks-page'));

/** A page loaded on demand, saying what it loads meanwhile. */
function onDemand(Page: ComponentType, what: string) {
  return (
    <Suspense fallback={<p aria-live="polite">Loading {what}…</p>}>
      <Page />
    </Suspense>
  );
}

const editor = onDemand(EditorPage, 'the editor');

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
        <Route path="/posts/:id/history" element={onDemand(HistoryPage, 'the history')} />
        <Route path="/media" element={onDemand(MediaPage, 'the media library')} />
        <Route path="/site" element={onDemand(SitePage, 'the site page')} />
        <Route path="/dashboard" element={onDemand(DashboardPage, 'the dashboard')} />
        <Route path="/webhooks" element={onDemand(WebhooksPage, 'the webhooks')} />
      </Route>
      <Route path="*" element={<NotFoundPage />} />
    </Routes>
  );
}
