import { defineRoute, listEnvelope } from '../../http/route.js';
import type { ProductService } from './product.service.js';
import { listProductsQuery, productSchema, serializeProduct } from './product.schemas.js';

export function productRoutes(products: ProductService) {
  return [
    defineRoute({
      method: 'get',
      path: '/products',
      operationId: 'listProducts',
      summary: 'List products detected on shelves',
      tag: 'Products',
      query: listProductsQuery,
      status: 200,
      response: listEnvelope(productSchema),
      handler: async ({ auth, query }) => {
        const { cursor, limit, ...filters } = query;
        const page = await products.list(auth.organisationId, filters, { cursor, limit });
        return { body: { data: page.items.map(serializeProduct), pagination: page.pagination } };
      },
    }),
  ];
}
