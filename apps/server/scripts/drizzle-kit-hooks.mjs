let parent;
export function initialize(data) {
  parent = data.parent;
}
export async function resolve(specifier, context, next) {
  if (specifier === 'drizzle-orm' || specifier.startsWith('drizzle-orm/'))
    return next(specifier, { ...context, parentURL: parent });
  return next(specifier, context);
}
