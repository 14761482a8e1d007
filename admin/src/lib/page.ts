import { useEffect, useRef } from 'react';
import { useLocation } from 'react-router';

/** Names the page in the tab's title, as a screen reader announces it. */
export function useDocumentTitle(title: string): void {
  useEffect(() => {
    document.title = `${title} · MarginCMS`;
  }, [title]);
}

/**
 * After a navigation to another page (not on the first load, nor when only the query changes, as
 * a status tab or a search does), focus moves to the page's main landmark: a screen reader reads
 * the new page from its start and the next Tab starts there, as after a full page load.
 */
export function useFocusOnNavigation(): void {
  const { pathname } = useLocation();
  const previous = useRef(pathname);
  useEffect(() => {
    if (previous.current === pathname) return;
    previous.current = pathname;
    document.getElementById('main')?.focus();
  }, [pathname]);
}
