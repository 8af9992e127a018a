// Server-sent events over a POST response. EventSource cannot POST, so the answer stream of a turn is
// read from fetch's body and parsed here; each event's data is JSON (plain text if it is not).

/**
 * Incremental SSE parser: feed text chunks with push(), call end() at EOF.
 * onEvent(name, data) is called once per event; data lines are joined with "\n".
 */
function createSseParser(onEvent) {
  let buffer = "";
  let eventName = "";
  let dataLines = [];

  function dispatch() {
    if (dataLines.length > 0) onEvent(eventName || "message", dataLines.join("\n"));
    eventName = "";
    dataLines = [];
  }

  function processLine(line) {
    if (line === "") return dispatch();
    if (line.startsWith(":")) return undefined; // comment / keep-alive
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "event") eventName = value;
    else if (field === "data") dataLines.push(value);
    // "id" and "retry" only matter for EventSource reconnection, which a one-shot POST never does.
    return undefined;
  }

  return {
    push(chunk) {
      buffer += chunk;
      const newline = /\r\n|\r|\n/g;
      let start = 0;
      let match;
      while ((match = newline.exec(buffer)) !== null) {
        // A trailing "\r" may be the first half of "\r\n" split across chunks: wait for more.
        if (match[0] === "\r" && match.index === buffer.length - 1) break;
        processLine(buffer.slice(start, match.index));
        start = newline.lastIndex;
      }
      buffer = buffer.slice(start);
    },
    end() {
      // Lenient: a final event without the closing blank line is still delivered.
      if (buffer) processLine(buffer.replace(/\r$/, ""));
      buffer = "";
      dispatch();
    },
  };
}

/** Read the response body to its end, calling onEvent(name, payload) for each event. */
export async function readEventStream(response, onEvent) {
  const parser = createSseParser((name, data) => {
    let payload = {};
    try {
      payload = data ? JSON.parse(data) : {};
    } catch {
      payload = { text: data };
    }
    onEvent(name, payload);
  });
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    parser.push(decoder.decode(value, { stream: true }));
  }
  parser.push(decoder.decode());
  parser.end();
}
