import { defaultKeymap, history, historyKeymap } from '@codemirror/commands';
import { markdownKeymap, markdownLanguage } from '@codemirror/lang-markdown';
import { Annotation, Compartment, EditorState } from '@codemirror/state';
import { EditorView, keymap, placeholder } from '@codemirror/view';
import { useEffect, useEffectEvent, useRef } from 'react';
import { imageDrop, type ImageUpload } from './image-drop';

/**
 * The nonce the server gave this page for its `<style>` elements (`<meta property="csp-nonce">`,
 * see src/adapters/http/admin.ts): CodeMirror writes its styles into one, which the admin's CSP
 * (`style-src 'self' 'nonce-…'`) refuses without it. The browser hides the attribute once the
 * page has a CSP; the `nonce` property keeps it. Empty where there is none (tests, `vite` dev).
 */
function cspNonce(): string {
  const meta = document.querySelector<HTMLMetaElement>('meta[property="csp-nonce"]');
  return meta?.nonce || meta?.getAttribute('nonce') || '';
}

/** Colours and fonts from the admin's CSS variables, so light and dark follow the system as the rest of the page does. */
const theme = EditorView.theme({
  '&': { border: '1px solid var(--muted)', borderRadius: '6px', background: 'var(--bg)', color: 'var(--fg)' },
  '&.cm-focused': { outline: '3px solid var(--accent)', outlineOffset: '2px' },
  '.cm-scroller': {
    fontFamily: "ui-monospace, 'SFMono-Regular', Menlo, Consolas, monospace",
    lineHeight: '1.5',
    minHeight: '24rem',
    maxHeight: '70vh',
  },
  '.cm-content': { padding: '0.5rem', caretColor: 'var(--fg)' },
  '.cm-cursor, .cm-dropCursor': { borderLeftColor: 'var(--fg)' },
  '&.cm-focused .cm-selectionBackground, .cm-selectionBackground, .cm-content ::selection': {
    background: 'color-mix(in srgb, var(--accent) 30%, var(--bg))',
  },
  '.cm-placeholder': { color: 'var(--muted)' },
});

/** The editable element's attributes: its id, the label that names it, its hint and error. */
function contentAttributes({ id, describedBy, invalid }: Pick<MarkdownEditorProps, 'id' | 'describedBy' | 'invalid'>) {
  return EditorView.contentAttributes.of({
    id,
    'aria-labelledby': `${id}-label`,
    'aria-multiline': 'true',
    ...(describedBy ? { 'aria-describedby': describedBy } : {}),
    ...(invalid ? { 'aria-invalid': 'true' } : {}),
  });
}

/** Marks the change that makes the document follow `value`: it is not the author's, so it is not told back. */
const followed = Annotation.define<boolean>();

export interface MarkdownEditorProps {
  /** The id of the editable element; `${id}-label` must name the label that names it. */
  id: string;
  value: string;
  onChange: (value: string) => void;
  describedBy: string | undefined;
  invalid: boolean;
  /** Uploads an image dropped or pasted into the body and answers its markdown (null: it failed). */
  onImage: ImageUpload;
}

/**
 * The markdown body in CodeMirror 6 (in the editor's lazy chunk): history, the default keymap
 * and markdown's (Enter continues a list), lines wrapped. Tab is not bound, so it leaves the
 * editor as from any field. The editable element is a textbox labelled by the field's label.
 * The document follows `value` when it changes from outside (a restored copy, their version).
 * An image dropped or pasted in is uploaded and its markdown inserted there (image-drop.ts).
 */
export function MarkdownEditor({ id, value, onChange, describedBy, invalid, onImage }: MarkdownEditorProps) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const attributes = useRef(new Compartment());
  const changed = useEffectEvent((doc: string) => onChange(doc));
  const image = useEffectEvent((file: File) => onImage(file));

  useEffect(() => {
    const made = new EditorView({
      parent: host.current!,
      state: EditorState.create({
        doc: value,
        extensions: [
          history(),
          // The markdown language and its keys, not markdown(): that one also brings the HTML, CSS
          // and JavaScript languages for embedded tags and code (about 100 KB gzipped more).
          markdownLanguage.extension,
          keymap.of([...markdownKeymap, ...defaultKeymap, ...historyKeymap]),
          EditorView.lineWrapping,
          EditorView.cspNonce.of(cspNonce()),
          theme,
          attributes.current.of(contentAttributes({ id, describedBy, invalid })),
          placeholder('Write in markdown…'),
          imageDrop((file) => image(file)),
          EditorView.updateListener.of((update) => {
            if (update.docChanged && !update.transactions.some((tr) => tr.annotation(followed))) changed(update.state.doc.toString());
          }),
        ],
      }),
    });
    view.current = made;
    return () => {
      made.destroy();
      view.current = null;
    };
    // The view is made once; `value` is followed below.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  useEffect(() => {
    const current = view.current;
    if (!current || current.state.doc.toString() === value) return;
    current.dispatch({ changes: { from: 0, to: current.state.doc.length, insert: value }, annotations: followed.of(true) });
  }, [value]);

  useEffect(() => {
    view.current?.dispatch({ effects: attributes.current.reconfigure(contentAttributes({ id, describedBy, invalid })) });
  }, [id, describedBy, invalid]);

  return <div ref={host} className="markdown-editor" />;
}
