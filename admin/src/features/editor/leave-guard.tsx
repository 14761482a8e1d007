/** Asks before a navigation leaves unsaved changes behind; focus starts on staying, the safe choice. */
export function LeaveGuard({ onStay, onLeave }: { onStay: () => void; onLeave: () => void }) {
  return (
    <div role="alertdialog" aria-labelledby="leave-title" aria-describedby="leave-detail" className="alert leave-guard">
      <p id="leave-title" className="alert-title">
        Leave without saving?
      </p>
      <p id="leave-detail">Your changes to this post are not saved. If you leave now, they are lost.</p>
      <div className="actions">
        <button type="button" onClick={onStay} autoFocus>
          Stay and keep editing
        </button>
        <button type="button" className="secondary" onClick={onLeave}>
          Leave without saving
        </button>
      </div>
    </div>
  );
}
