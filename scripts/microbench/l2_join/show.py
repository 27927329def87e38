import sys, numpy as np
d = sys.argv[1]
o = np.load(d + '/out.npy'); c = np.load(d + '/cyc.npy')
print('trial d lat_w0 lat_w1 issue_w0 issue_w1')
for t in range(48): print(t, (t % 12) * 75, o[2*t], o[2*t+1], o[96+2*t], o[96+2*t+1])
n = int(sys.argv[2]) if len(sys.argv) > 2 else 64
print('share cyc G=%d' % n, c[:n].min(), c[:n].max(), np.median(c[:n]))
