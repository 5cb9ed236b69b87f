// JSON.parse with the file's name in the message: "Unexpected end of JSON input" alone says neither which file nor
// what to do.

/** The JSON value of `text`, read from `where`; an empty or malformed text is an error naming it and `advice`. */
export function parseJsonText(text: string, where: string, advice: string): unknown {
  if (text.trim() === '') throw new Error(`${where} is empty; ${advice}`);
  try {
    return JSON.parse(text);
  } catch (error) {
    const reason = (error as Error).message;
    throw new Error(`${where} is not valid JSON (${reason.length > 120 ? `${reason.slice(0, 120)}…` : reason}); ${advice}`, {
      cause: error,
    });
  }
}
