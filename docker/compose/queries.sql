-- TPC-DS q3-style aggregation over store_sales at scale 0.01, run twice: the first pass fills the three
-- nodes' caches (bk1 its own splits, bk2 and bk3 theirs through peer fetches), the second reads warm.
-- Compare `rubix status` of each node before and after.
CREATE TEMPORARY VIEW store_sales USING orc OPTIONS (path 's3a://rubix-tpcds/tpcds/sf0_01/orc/store_sales');
CREATE TEMPORARY VIEW date_dim USING orc OPTIONS (path 's3a://rubix-tpcds/tpcds/sf0_01/orc/date_dim');
CREATE TEMPORARY VIEW item USING orc OPTIONS (path 's3a://rubix-tpcds/tpcds/sf0_01/orc/item');

SELECT d.d_year, i.i_brand_id, i.i_brand, SUM(ss.ss_ext_sales_price) AS sum_agg
FROM date_dim d JOIN store_sales ss ON d.d_date_sk = ss.ss_sold_date_sk JOIN item i ON ss.ss_item_sk = i.i_item_sk
WHERE i.i_manufact_id = 128 AND d.d_moy = 11
GROUP BY d.d_year, i.i_brand, i.i_brand_id ORDER BY d.d_year, sum_agg DESC, i.i_brand_id LIMIT 10;

SELECT d.d_year, i.i_brand_id, i.i_brand, SUM(ss.ss_ext_sales_price) AS sum_agg
FROM date_dim d JOIN store_sales ss ON d.d_date_sk = ss.ss_sold_date_sk JOIN item i ON ss.ss_item_sk = i.i_item_sk
WHERE i.i_manufact_id = 128 AND d.d_moy = 11
GROUP BY d.d_year, i.i_brand, i.i_brand_id ORDER BY d.d_year, sum_agg DESC, i.i_brand_id LIMIT 10;
