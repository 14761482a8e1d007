import { Route, Routes } from 'react-router';
import { NotFoundPage } from '../components/not-found-page';

/** The admin's routes, below /admin/ (the router's basename). */
export function AppRoutes() {
  return (
    <Routes>
      <Route path="*" element={<NotFoundPage />} />
    </Routes>
  );
}
