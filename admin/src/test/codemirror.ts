/**
 * The markdown body (CodeMirror 6) in component tests: jsdom lays nothing out, so the ranges
 * CodeMirror measures get empty rectangles; the body is read and typed through the editor's own
 * view (`EditorView.findFromDOM` of the element labelled "Body (markdown)"), as a keystroke would.
 */
import { EditorView } from '@codemirror/view';
import { screen } from '@testing-library/react';

const empty = (): DOMRect => ({ x: 0, y: 0, top: 0, left: 0, right: 0, bottom: 0, width: 0, height: 0, toJSON: () => ({}) });
Range.prototype.getClientRects ??= () => Object.assign([], { item: () => null }) as unknown as DOMRectList;
Range.prototype.getBoundingClientRect ??= empty;

/** The body's editor view. */
export function bodyEditor(): EditorView {
  const view = EditorView.findFromDOM(screen.getByLabelText('Body (markdown)'));
  if (!view) throw new Error('the body is not a CodeMirror editor');
  return view;
}

/** The markdown in the body. */
export const bodyText = (): string => bodyEditor().state.doc.toString();

/** Types `text` at the end of the body, as the author would. */
export function typeInBody(text: string): void {
  const view = bodyEditor();
  view.dispatch({ changes: { from: view.state.doc.length, insert: text }, userEvent: 'input.type' });
}
