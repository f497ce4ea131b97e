from pointops import _C


def ball_query(xyz, new_xyz, radius, nsample):
    return _C.ball_query(xyz.contiguous(), new_xyz.contiguous(), radius, nsample)
