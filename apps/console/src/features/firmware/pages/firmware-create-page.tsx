import FirmwareForm from '../components/firmware-form';

export default function FirmwareCreatePage() {
  return <FirmwareForm />;
}
