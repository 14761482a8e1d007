import { Navigate, Route, Routes } from 'react-router';
import { NotFoundPage } from '../components/not-found-page';
import { useFocusOnNavigation } from '../lib/page';
import { RequireSession } from '../features/auth/require-session';
import { SignInPage } from '../features/auth/sign-in-page';
import { PostsPage } from '../features/posts/posts-page';
import { Shell } from './shell';

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
      </Route>
      <Route path="*" element={<NotFoundPage />} />
    </Routes>
  );
}
