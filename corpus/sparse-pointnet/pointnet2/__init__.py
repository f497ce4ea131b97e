from pointnet2 import _ext


def furthest_point_sample(xyz, npoint):
    return _ext.furthest_point_sampling(xyz.contiguous(), npoint)


def three_interpolate(unknown, known, feats):
    return _ext.three_interpolate(unknown.contiguous(), known.contiguous(), feats.contiguous())
