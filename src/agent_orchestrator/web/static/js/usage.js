// The signed-in user's model tokens today (and their daily budget, if any), next to their name.
// Fetched after sign-in and after every turn; a failed fetch leaves the last figure in place.

import { api } from "./api.js";
import { $ } from "./dom.js";

export async function refreshUsage() {
  let usage;
  try {
    usage = await api("GET", "/api/usage");
  } catch {
    return;
  }
  const used = usage.today.total_tokens.toLocaleString();
  const budget = usage.daily_budget === null ? "" : ` of ${usage.daily_budget.toLocaleString()}`;
  $("usage").textContent = `${used}${budget} tokens today`;
}

export function clearUsage() {
  $("usage").textContent = "";
}
