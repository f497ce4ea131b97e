import torch


# A class of the lab's own with a method named like a Tensor one (torch_geometric's EdgeIndex.to_sparse_csr(value)):
# in this file, `.to_sparse_csr()` is that method, not torch's sparse conversion.
class EdgeList:
    def to_sparse_csr(self, value=None):
        # ruleid: mps-sparse-layout
        return torch.sparse_csr_tensor(self.rowptr, self.col, value)

    def adjacency(self, other):
        # ok: mps-sparse-layout
        return self.to_sparse_csr(), other.to_sparse_csr(1.0)
