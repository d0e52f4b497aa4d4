import ProductForm from '../components/product-form';

export default function ProductCreatePage() {
  return <ProductForm />;
}
