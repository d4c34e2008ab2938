/**
 * The sign-in page, the only page an unauthenticated browser gets: a form
 * and, after a refused attempt, why. Everything else the console serves
 * needs a session.
 */

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

export function signInPage(problem?: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sign in · EdgeConnect platform console</title>
<link rel="stylesheet" href="/style.css">
</head>
<body class="signin">
<main>
<h1>EdgeConnect platform console</h1>
<p>Sign in with a kcp bearer token. The console asks kcp with it, and shows what kcp lets it read.</p>
${problem === undefined ? "" : `<p class="problem" role="alert">${escapeHtml(problem)}</p>`}
<form method="post" action="/signin">
<label>kcp token <input type="password" name="token" autocomplete="off" required></label>
<label>Workspace <input type="text" name="workspace" placeholder="root:my-team" autocomplete="off"></label>
<p class="hint">Tenants: your workspace path. The platform team: leave it empty.</p>
<button type="submit">Sign in</button>
</form>
</main>
</body>
</html>
`;
}
