import { NavLink, Outlet } from 'react-router';
import { SignOutButton } from '../features/auth/sign-out-button';

/** The frame of every signed-in page: a skip link, the banner with the navigation, the main landmark. */
export function Shell() {
  return (
    <>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="banner">
        <p className="brand">MarginCMS</p>
        <nav aria-label="Main">
          <ul>
            <li>
              <NavLink to="/posts">Posts</NavLink>
            </li>
            <li>
              <NavLink to="/media">Media</NavLink>
            </li>
            <li>
              <NavLink to="/dashboard">Dashboard</NavLink>
            </li>
            <li>
              <NavLink to="/site">Site</NavLink>
            </li>
            <li>
              <NavLink to="/webhooks">Webhooks</NavLink>
            </li>
          </ul>
        </nav>
        <SignOutButton />
      </header>
      <main id="main" className="page" tabIndex={-1}>
        <Outlet />
      </main>
    </>
  );
}
