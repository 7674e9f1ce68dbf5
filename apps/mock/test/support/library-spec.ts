// A small API of this test's own, sharing nothing with the two the mock is for: authors with their books
// (a sub-collection, an envelope list, a create answered 201 with Location), an author's bio (plain text),
// shelves holding book ids (members), a unique author name. The mock must remember it all from this
// document alone (state.test.ts).
const error = {
  description: 'Refused.',
  content: {
    'application/json': {
      schema: { $ref: '#/components/schemas/Error' },
      examples: { refused: { value: { code: 'refused', message: 'The request was refused.' } } },
    },
  },
};
const json = (schema: unknown, example: unknown) => ({
  'application/json': { schema, examples: { example: { value: example } } },
});
const errors = { '400': error, '401': error, '404': error };
const author = { id: 7, name: 'Mary Shelley', born: 1797, createdAt: '2025-01-01T00:00:00Z' };
const book = {
  id: '4b1c2f7e-0c2d-4e8a-9f3b-5d6e7f8a9b0c',
  authorId: 7,
  title: 'Frankenstein',
  year: 1818,
};

export const librarySpec = {
  openapi: '3.1.0',
  info: { title: 'Library', version: '1.0.0' },
  security: [{ basic: [] }],
  paths: {
    '/authors': {
      get: {
        operationId: 'listAuthors',
        parameters: [
          { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 0, maximum: 100, default: 20 } },
          { name: 'offset', in: 'query', schema: { type: 'integer', minimum: 0, default: 0 } },
        ],
        responses: {
          '200': {
            description: 'A page of authors.',
            content: json({ type: 'array', items: { $ref: '#/components/schemas/Author' } }, [author]),
          },
          ...errors,
        },
      },
      post: {
        operationId: 'createAuthor',
        requestBody: {
          required: true,
          content: json({ $ref: '#/components/schemas/AuthorCreate' }, { name: 'Mary Shelley', born: 1797 }),
        },
        responses: {
          '201': {
            description: 'Created.',
            headers: { Location: { schema: { type: 'string' } } },
            links: {
              GetAuthor: { operationId: 'getAuthor', parameters: { authorId: '$response.body#/id' } },
            },
            content: json({ $ref: '#/components/schemas/Author' }, author),
          },
          '409': error,
          ...errors,
        },
      },
    },
    '/authors/{authorId}': {
      parameters: [{ name: 'authorId', in: 'path', required: true, schema: { type: 'integer', minimum: 1 } }],
      get: {
        operationId: 'getAuthor',
        responses: {
          '200': {
            description: 'The author.',
            content: json({ $ref: '#/components/schemas/Author' }, author),
          },
          ...errors,
        },
      },
      patch: {
        operationId: 'updateAuthor',
        requestBody: {
          required: true,
          content: json({ $ref: '#/components/schemas/AuthorChange' }, { born: 1798 }),
        },
        responses: {
          '200': { description: 'Changed.', content: json({ $ref: '#/components/schemas/Author' }, author) },
          '409': error,
          ...errors,
        },
      },
      delete: { operationId: 'deleteAuthor', responses: { '204': { description: 'Gone.' }, ...errors } },
    },
    '/authors/{authorId}/bio': {
      parameters: [{ name: 'authorId', in: 'path', required: true, schema: { type: 'integer', minimum: 1 } }],
      get: {
        operationId: 'getBio',
        responses: {
          '200': {
            description: 'The bio.',
            content: { 'text/plain': { schema: { type: 'string' }, example: 'Wrote Frankenstein.' } },
          },
          ...errors,
        },
      },
      put: {
        operationId: 'putBio',
        requestBody: {
          required: true,
          content: { 'text/plain': { schema: { type: 'string' }, example: 'Wrote Frankenstein.' } },
        },
        responses: { '204': { description: 'Stored.' }, ...errors },
      },
    },
    '/authors/{authorId}/books': {
      parameters: [{ name: 'authorId', in: 'path', required: true, schema: { type: 'integer', minimum: 1 } }],
      get: {
        operationId: 'listBooks',
        responses: {
          '200': {
            description: 'The books.',
            content: json(
              {
                type: 'object',
                required: ['books'],
                properties: { books: { type: 'array', items: { $ref: '#/components/schemas/Book' } } },
              },
              { books: [book] },
            ),
          },
          ...errors,
        },
      },
      post: {
        operationId: 'createBook',
        requestBody: {
          required: true,
          content: json({ $ref: '#/components/schemas/BookCreate' }, { title: 'Frankenstein' }),
        },
        responses: {
          '201': { description: 'Created.', content: json({ $ref: '#/components/schemas/Book' }, book) },
          ...errors,
        },
      },
    },
    '/authors/{authorId}/books/{bookId}': {
      parameters: [
        { name: 'authorId', in: 'path', required: true, schema: { type: 'integer', minimum: 1 } },
        { name: 'bookId', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } },
      ],
      get: {
        operationId: 'getBook',
        responses: {
          '200': { description: 'The book.', content: json({ $ref: '#/components/schemas/Book' }, book) },
          ...errors,
        },
      },
      put: {
        operationId: 'replaceBook',
        requestBody: {
          required: true,
          content: json({ $ref: '#/components/schemas/BookCreate' }, { title: 'Frankenstein' }),
        },
        responses: { '200': { description: 'Changed; no body.' }, ...errors },
      },
      delete: { operationId: 'deleteBook', responses: { '204': { description: 'Gone.' }, ...errors } },
    },
    '/shelves': {
      get: {
        operationId: 'listShelves',
        responses: {
          '200': {
            description: 'The shelves.',
            content: json({ type: 'array', items: { $ref: '#/components/schemas/Shelf' } }, [
              { id: 3, label: 'Gothic' },
            ]),
          },
          ...errors,
        },
      },
      post: {
        operationId: 'createShelf',
        requestBody: {
          required: true,
          content: json({ $ref: '#/components/schemas/ShelfCreate' }, { label: 'Gothic' }),
        },
        responses: {
          '201': {
            description: 'Created.',
            content: json({ $ref: '#/components/schemas/Shelf' }, { id: 3, label: 'Gothic' }),
          },
          ...errors,
        },
      },
    },
    '/shelves/{shelfId}/books': {
      parameters: [{ name: 'shelfId', in: 'path', required: true, schema: { type: 'integer', minimum: 1 } }],
      get: {
        operationId: 'listShelfBooks',
        responses: {
          '200': {
            description: 'The ids of the books on the shelf.',
            content: json({ type: 'array', items: { type: 'string', format: 'uuid' } }, [book.id]),
          },
          ...errors,
        },
      },
    },
    '/shelves/{shelfId}/books/{bookId}': {
      parameters: [
        { name: 'shelfId', in: 'path', required: true, schema: { type: 'integer', minimum: 1 } },
        { name: 'bookId', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } },
      ],
      put: { operationId: 'shelveBook', responses: { '204': { description: 'Shelved.' }, ...errors } },
      delete: { operationId: 'unshelveBook', responses: { '204': { description: 'Taken off.' }, ...errors } },
    },
  },
  components: {
    securitySchemes: { basic: { type: 'http', scheme: 'basic' } },
    schemas: {
      Error: {
        type: 'object',
        required: ['code', 'message'],
        properties: { code: { type: 'string' }, message: { type: 'string' } },
      },
      Author: {
        type: 'object',
        additionalProperties: false,
        required: ['id', 'name', 'createdAt'],
        properties: {
          id: { type: 'integer', minimum: 1, readOnly: true },
          name: { type: 'string', minLength: 1 },
          born: { type: 'integer' },
          createdAt: { type: 'string', format: 'date-time', readOnly: true },
          pin: { type: 'string', writeOnly: true },
        },
      },
      AuthorCreate: {
        type: 'object',
        required: ['name'],
        properties: {
          name: { type: 'string', minLength: 1, 'x-state': { unique: true } },
          born: { type: 'integer' },
          pin: { type: 'string' },
        },
      },
      AuthorChange: {
        type: 'object',
        properties: {
          name: { type: 'string', minLength: 1, 'x-state': { unique: true } },
          born: { type: 'integer' },
        },
      },
      Book: {
        type: 'object',
        required: ['id', 'authorId', 'title'],
        properties: {
          id: { type: 'string', format: 'uuid', readOnly: true },
          authorId: { type: 'integer' },
          title: { type: 'string' },
          year: { type: 'integer' },
        },
      },
      BookCreate: {
        type: 'object',
        required: ['title'],
        properties: { title: { type: 'string' }, year: { type: 'integer' } },
      },
      Shelf: {
        type: 'object',
        required: ['id', 'label'],
        properties: { id: { type: 'integer', readOnly: true }, label: { type: 'string' } },
      },
      ShelfCreate: { type: 'object', required: ['label'], properties: { label: { type: 'string' } } },
    },
  },
};
