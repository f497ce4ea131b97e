from torch.utils.data import DataLoader


def loaders(train_set, val_set, device):
    # ruleid: pin-memory-enabled
    train = DataLoader(train_set, batch_size=64, shuffle=True, pin_memory=True)
    # ok: pin-memory-enabled
    val = DataLoader(val_set, batch_size=64, pin_memory=device.type == "cuda")
    # ok: pin-memory-enabled
    test = DataLoader(val_set, batch_size=64, pin_memory=False)
    return train, val, test
