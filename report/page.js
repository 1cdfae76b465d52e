// Hover details: any element with data-tip shows it in a floating box.
(function(){
  var tip=document.getElementById('tip');
  document.addEventListener('mousemove',function(e){
    var t=e.target.closest?e.target.closest('[data-tip]'):null;
    if(!t){tip.style.display='none';return;}
    tip.textContent=t.getAttribute('data-tip');
    tip.style.display='block';
    var x=e.clientX+14,y=e.clientY+14;
    if(x+tip.offsetWidth>window.innerWidth)x=e.clientX-tip.offsetWidth-8;
    if(y+tip.offsetHeight>window.innerHeight)y=e.clientY-tip.offsetHeight-8;
    tip.style.left=x+'px';tip.style.top=y+'px';
  });
  // Zoom: the wheel over a zoomable chart narrows or widens its time axis;
  // a double click resets it.
  document.querySelectorAll('svg.zoomable').forEach(function(svg){
    var vb=svg.viewBox.baseVal, full={x:vb.x,w:vb.width}, left=+svg.getAttribute('data-plot-left')||0;
    svg.addEventListener('wheel',function(e){
      e.preventDefault();
      var r=svg.getBoundingClientRect(), f=(e.clientX-r.left)/r.width;
      var px=vb.x+f*vb.width, k=e.deltaY<0?0.8:1.25;
      var w=Math.min(full.w,Math.max(full.w/200,vb.width*k));
      vb.x=Math.max(full.x,Math.min(full.x+full.w-w,px-f*w));vb.width=w;
    },{passive:false});
    svg.addEventListener('dblclick',function(){vb.x=full.x;vb.width=full.w;});
  });
})();
