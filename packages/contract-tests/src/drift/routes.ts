// Route regexes of the target as path templates, and the shape two templates are matched by.

/**
 * Turns a route regex (`/wp/v2/posts/(?P<id>[\d]+)`) into a template whose placeholders keep the
 * group names (`/wp/v2/posts/{id}`). Named groups may nest groups and character classes.
 */
export function routeToTemplate(route: string): string {
  let template = '';
  let index = 0;
  while (index < route.length) {
    const start = route.indexOf('(?P<', index);
    if (start === -1) {
      template += route.slice(index);
      break;
    }
    template += route.slice(index, start);
    const nameEnd = route.indexOf('>', start);
    const name = route.slice(start + 4, nameEnd);
    template += `{${name}}`;
    index = closingParen(route, start) + 1;
  }
  return template;
}

function closingParen(pattern: string, open: number): number {
  let depth = 0;
  let inClass = false;
  for (let i = open; i < pattern.length; i++) {
    const char = pattern[i];
    if (char === '\\') {
      i++;
      continue;
    }
    if (inClass) {
      if (char === ']') inClass = false;
      continue;
    }
    if (char === '[') inClass = true;
    else if (char === '(') depth++;
    else if (char === ')') {
      depth--;
      if (depth === 0) return i;
    }
  }
  throw new Error(`Unbalanced group in route ${pattern}`);
}

/** `/wp/v2/posts/{id}` → `/wp/v2/posts/{}`: routes match by shape, names are mapped by position. */
export function shape(template: string): string {
  return template.replace(/\{[^}]*\}/g, '{}');
}

export function placeholderNames(template: string): string[] {
  return [...template.matchAll(/\{([^}]*)\}/g)].map((match) => match[1] ?? '');
}
