import { StateEffect, StateField, type Extension, type Text } from '@codemirror/state';
import { Decoration, EditorView, WidgetType, type DecorationSet } from '@codemirror/view';

/**
 * Uploads one image and answers the markdown to insert where it was dropped or pasted, or null
 * when the upload failed (the caller says why, where the author looks).
 */
export type ImageUpload = (file: File) => Promise<string | null>;

interface Pending {
  id: number;
  pos: number;
  name: string;
}

const addPending = StateEffect.define<Pending>({ map: (value, changes) => ({ ...value, pos: changes.mapPos(value.pos, 1) }) });
const removePending = StateEffect.define<number>();

/** "Uploading sunset.png…" in the text where the image will go; not part of the document. */
class PendingWidget extends WidgetType {
  constructor(
    readonly id: number,
    readonly name: string,
  ) {
    super();
  }

  override eq(other: PendingWidget): boolean {
    return other.id === this.id;
  }

  toDOM(): HTMLElement {
    const span = document.createElement('span');
    span.className = 'cm-upload-pending';
    span.textContent = `Uploading ${this.name}…`;
    return span;
  }
}

const idOf = (decoration: Decoration) => (decoration.spec.widget as PendingWidget).id;

/** The uploads under way, each a widget that moves with the text typed before it meanwhile. */
const pendingField = StateField.define<DecorationSet>({
  create: () => Decoration.none,
  update(set, tr) {
    let next = set.map(tr.changes);
    for (const effect of tr.effects) {
      if (effect.is(addPending)) {
        const widget = Decoration.widget({ widget: new PendingWidget(effect.value.id, effect.value.name), side: 1 });
        next = next.update({ add: [widget.range(effect.value.pos)] });
      } else if (effect.is(removePending)) {
        next = next.update({ filter: (_from, _to, decoration) => idOf(decoration) !== effect.value });
      }
    }
    return next;
  },
  provide: (field) => EditorView.decorations.from(field),
});

/** Where the upload `id` will go now, or null once it is gone (the text around it deleted). */
function positionOf(view: EditorView, id: number): number | null {
  let found: number | null = null;
  view.state.field(pendingField).between(0, view.state.doc.length, (from, _to, decoration) => {
    if (idOf(decoration) !== id) return undefined;
    found = from;
    return false;
  });
  return found;
}

let lastId = 0;

const blank = (doc: Text, line: number): boolean => doc.line(line).text.trim() === '';

/**
 * `markdown` as a paragraph of its own at `pos`: a blank line before it unless the document starts
 * there or a blank line is already there, and after it unless the document ends there or a blank
 * line follows; within a line, the line is split. Else an image dropped at the start of a line ran
 * into it (`![…](…)## Heading` is no heading any more).
 */
function ownParagraph(doc: Text, pos: number, markdown: string): string {
  const line = doc.lineAt(pos);
  const before = pos > line.from ? '\n\n' : line.number > 1 && !blank(doc, line.number - 1) ? '\n' : '';
  // At a line's end its own line break ends the image's line: one more makes the blank line.
  const after = pos < line.to ? '\n\n' : line.number < doc.lines && !blank(doc, line.number + 1) ? '\n' : '';
  return `${before}${markdown}${after}`;
}

/** Uploads each file and puts its markdown where it was dropped, one after the other, each a paragraph of its own. */
function uploadAt(view: EditorView, files: File[], pos: number, upload: ImageUpload): void {
  for (const file of files) {
    const id = ++lastId;
    view.dispatch({ effects: addPending.of({ id, pos, name: file.name }) });
    void upload(file).then(
      (markdown) => {
        // The author left the editor meanwhile: the answer has nowhere to go.
        if (!view.dom.isConnected) return;
        const at = positionOf(view, id);
        const effects = removePending.of(id);
        if (markdown === null || at === null) view.dispatch({ effects });
        else {
          const insert = ownParagraph(view.state.doc, at, markdown);
          view.dispatch({ changes: { from: at, insert }, effects, userEvent: 'input.paste', scrollIntoView: true });
        }
      },
      () => {
        if (view.dom.isConnected) view.dispatch({ effects: removePending.of(id) });
      },
    );
  }
}

/** The images among a drop's or a paste's files (anything else goes the usual way). */
const imagesOf = (data: DataTransfer | null): File[] => (data ? [...data.files].filter((file) => file.type.startsWith('image/')) : []);

/**
 * Images dropped on or pasted into the body are uploaded by `upload` and their markdown inserted at the drop point or the cursor,
 * on a line of its own with blank lines around it; while one uploads, a marker shows
 * where it will go.
 */
export function imageDrop(upload: ImageUpload): Extension {
  return [
    pendingField,
    EditorView.domEventHandlers({
      drop(event, view) {
        const files = imagesOf(event.dataTransfer);
        if (files.length === 0) return false;
        event.preventDefault();
        const pos = view.posAtCoords({ x: event.clientX, y: event.clientY }) ?? view.state.selection.main.head;
        uploadAt(view, files, pos, upload);
        return true;
      },
      paste(event, view) {
        const files = imagesOf(event.clipboardData);
        if (files.length === 0) return false;
        event.preventDefault();
        const { from, to } = view.state.selection.main;
        if (from !== to) view.dispatch({ changes: { from, to }, userEvent: 'delete' });
        uploadAt(view, files, from, upload);
        return true;
      },
    }),
  ];
}
