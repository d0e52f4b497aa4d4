import { useParams } from 'react-router';
import ProductForm from '../components/product-form';

export default function ProductEditPage() {
  const { productKey = '' } = useParams();
  // A new key remounts the form, so its fields never mix two products.
  return <ProductForm key={productKey} productKey={productKey} />;
}
