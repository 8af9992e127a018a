// Feedback on an answer (docs/architecture.md#feedback): helpful or not (a thumbs up or down), then
// an optional note.
// The rating is the server's (PUT/DELETE …/messages/{event_id}/feedback) and shows on every device of
// the chat: the live feed's "feedback" event redraws the buttons of that answer.

import { api, isAbort, sessionPath } from "./api.js";
import { $, el } from "./dom.js";
import { state } from "./state.js";
import { setStatus } from "./status.js";

const LABELS = { up: "Rate this answer: helpful", down: "Rate this answer: not helpful" };

/** The rating buttons of a stored answer (one with an event id). */
export function feedbackControls(message) {
  const box = el("span", { className: "feedback", testid: "feedback" });
  box.dataset.eventId = message.event_id;
  draw(box, message.feedback || null);
  return box;
}

function draw(box, feedback) {
  const buttons = ["up", "down"].map((rating) => {
    const pressed = feedback?.rating === rating;
    const button = el("button", {
      className: "btn btn-ghost btn-small",
      // words, not emoji: a system without an emoji font would show empty boxes
      text: rating === "up" ? "Helpful" : "Not helpful",
      testid: `feedback-${rating}`,
      attrs: { type: "button", "aria-label": LABELS[rating], title: LABELS[rating], "aria-pressed": String(pressed) },
    });
    button.addEventListener("click", () => (pressed ? clear(box) : rate(box, rating, feedback?.note || "", true)));
    return button;
  });
  const note = feedback?.note ? el("span", { className: "small muted", text: `“${feedback.note}”`, testid: "feedback-note-text" }) : null;
  box.replaceChildren(...buttons, ...(note ? [note] : []));
}

async function rate(box, rating, note, askNote) {
  const path = sessionPath(state.currentSessionId, `/messages/${encodeURIComponent(box.dataset.eventId)}/feedback`);
  try {
    await api("PUT", path, { rating, note });
  } catch (error) {
    if (!isAbort(error)) setStatus(`Could not save your feedback: ${error.message}`, "error");
    return;
  }
  draw(box, { rating, note });
  if (askNote) noteForm(box, rating, note);
  setStatus("Thanks for the feedback.");
}

async function clear(box) {
  const path = sessionPath(state.currentSessionId, `/messages/${encodeURIComponent(box.dataset.eventId)}/feedback`);
  try {
    await api("DELETE", path);
  } catch (error) {
    if (!isAbort(error)) setStatus(`Could not take the feedback back: ${error.message}`, "error");
    return;
  }
  draw(box, null);
}

/** "What was wrong?" (or right): an optional note, saved with the rating. */
function noteForm(box, rating, note) {
  const field = el("textarea", {
    testid: "feedback-note",
    attrs: { maxlength: 2000, "aria-label": "Add a note (optional)", placeholder: rating === "down" ? "What was wrong? (optional)" : "What was good? (optional)" },
  });
  field.value = note;
  const save = el("button", { className: "btn btn-primary btn-small", text: "Save note", testid: "feedback-note-save", attrs: { type: "submit" } });
  const skip = el("button", { className: "btn btn-ghost btn-small", text: "Skip", attrs: { type: "button" } });
  const form = el("form", { className: "feedback-note" }, [field, el("div", {}, [save, skip])]);
  skip.addEventListener("click", () => form.remove());
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    form.remove();
    await rate(box, rating, field.value.trim(), false);
  });
  box.after(form);
  field.focus();
}

/** The feed says an answer of the open chat was rated (here or on another device). */
export function showFeedback(data) {
  for (const box of $("messages").querySelectorAll('[data-testid="feedback"]')) {
    if (box.dataset.eventId === data.event_id) draw(box, data.rating ? { rating: data.rating, note: data.note || "" } : null);
  }
}
