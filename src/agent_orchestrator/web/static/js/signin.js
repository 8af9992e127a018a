// The sign-in form, on the app's login page and on a share link's own page: the same checks, the same
// request and the same messages for a wrong password, a refusal and a server out of reach.

import { ApiError, api } from "./api.js";
import { $, setText } from "./dom.js";

/**
 * Handle submits of the form whose fields are `<prefix>-username`, `-password`, `-error` and `-submit`;
 * `onSignedIn` gets the signed-in user's /api/auth/login answer.
 */
export function bindSignIn(form, prefix, onSignedIn) {
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const password = $(`${prefix}-password`);
    const error = $(`${prefix}-error`);
    const username = $(`${prefix}-username`).value.trim();
    if (!username || !password.value) {
      setText(error, "Enter your username and password.");
      return;
    }
    const submit = $(`${prefix}-submit`);
    submit.disabled = true;
    setText(error, "");
    try {
      const me = await api("POST", "/api/auth/login", { username, password: password.value });
      password.value = "";
      await onSignedIn(me);
    } catch (failure) {
      setText(error, signInError(failure));
      password.focus();
    } finally {
      submit.disabled = false;
    }
  });
}

function signInError(failure) {
  if (!(failure instanceof ApiError)) return "Cannot reach the server. Check your connection and try again.";
  return failure.status === 401 ? "Wrong username or password." : failure.message;
}
