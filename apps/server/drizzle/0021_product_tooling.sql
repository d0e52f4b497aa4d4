-- 0021_product_tooling: reserved for issue 15; the area's tables are written here.
SELECT 1;
